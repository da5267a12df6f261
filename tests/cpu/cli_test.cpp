#include <gtest/gtest.h>

#include <algorithm>

#include "core/device_info.hpp"
#include "support/run_cli.hpp"

namespace {

using Result = smemlab::testing::CliResult;
using smemlab::testing::run_cli;

}  // namespace

TEST(Cli, HelpAndListNeedNoDevice) {
  const Result help = run_cli({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("bench"), std::string::npos);
  const Result bench_help = run_cli({"bench", "--help"});
  EXPECT_EQ(bench_help.status, 0);
  EXPECT_NE(bench_help.out.find("--size"), std::string::npos);
  const Result list = run_cli({"list"});
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("matmul/naive "), std::string::npos);
  EXPECT_NE(list.out.find("matmul/cublas "), std::string::npos);
  EXPECT_EQ(run_cli({"list", "--family", "matmul"}).status, 0);
}

// Every bad input: exit status 2 and exactly one line on stderr, nothing on stdout. On a machine
// without a GPU this also shows the check comes before any device work: otherwise the answer
// would be "no CUDA device" with status 1.
class BadInput : public testing::TestWithParam<std::vector<std::string>> {};

TEST_P(BadInput, OneLineOnStderrAndStatus2) {
  const Result r = run_cli(GetParam());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("smemlab: ", 0), 0U) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadInput,
    testing::Values(std::vector<std::string>{},                        // no subcommand
                    std::vector<std::string>{"frobnicate"},            // unknown subcommand
                    std::vector<std::string>{"bench", "--family", "nope"},
                    std::vector<std::string>{"bench", "--variant", "nope"},
                    std::vector<std::string>{"bench", "--variant", "matmul/nope"},
                    std::vector<std::string>{"bench", "--format", "xml"},
                    std::vector<std::string>{"bench", "--size", "0"},
                    std::vector<std::string>{"bench", "--size", "-3"},
                    std::vector<std::string>{"bench", "--size", "abc"},
                    std::vector<std::string>{"bench", "--family", "matmul", "--size", "64x64"},
                    std::vector<std::string>{"bench", "--size", "1x2x3x4"},
                    std::vector<std::string>{"bench", "--size", "256,0"},
                    std::vector<std::string>{"bench", "--reps", "0"},
                    std::vector<std::string>{"bench", "--reps", "-2"},
                    std::vector<std::string>{"bench", "--family", "banks", "--reps", "-2"},
                    std::vector<std::string>{"bench", "--reps", "many"},
                    std::vector<std::string>{"bench", "--warmup", "-1"},
                    std::vector<std::string>{"bench", "--output", "/no/such/dir/out.json"},
                    std::vector<std::string>{"bench", "--unknown-flag"},
                    std::vector<std::string>{"--device", "-1", "info"},
                    std::vector<std::string>{"--device", "abc", "list"},
                    std::vector<std::string>{"bench", "--size", "1,,2"},  // an empty item
                    std::vector<std::string>{"bench", "--full", "--size", "1024"},
                    std::vector<std::string>{"bench", "--family", "matmul,"},
                    std::vector<std::string>{"sum", "--count", "abc"},
                    std::vector<std::string>{"sum", "--count", "4x4"},
                    std::vector<std::string>{"sum", "--type", "half"},
                    std::vector<std::string>{"list", "--family", "nope"}));

TEST(Cli, ErrorsNameWhatWasWrongInOneShortLine) {
  const Result device = run_cli({"--device", "abc", "list"});
  EXPECT_NE(device.err.find("--device"), std::string::npos) << device.err;
  EXPECT_LT(device.err.size(), 120U) << device.err;
  const Result count = run_cli({"sum", "--count", "abc"});
  EXPECT_NE(count.err.find("--count abc"), std::string::npos) << count.err;
  EXPECT_EQ(count.err.find("MxNxK"), std::string::npos) << count.err;  // a count is one number
  EXPECT_NE(run_cli({"bench", "--size", "1,,2"}).err.find("empty item"), std::string::npos);
}

TEST(Cli, VersionAndHelpSubcommand) {
  const Result version = run_cli({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out, "smemlab " SMEMLAB_VERSION "\n");
  const Result help = run_cli({"help"});
  EXPECT_EQ(help.status, 0);
  for (const char* sub : {"list", "bench", "explain", "banks", "sum", "info"})
    EXPECT_NE(help.out.find(sub), std::string::npos) << sub << " missing from\n" << help.out;
}

TEST(Cli, CommandsThatNeedAGpuFailCleanlyWithoutOne) {
  if (smemlab::device_count() > 0) GTEST_SKIP() << "a GPU is visible";
  for (const auto& args : {std::vector<std::string>{"info"},
                           std::vector<std::string>{"bench", "--variant", "naive", "--size", "64"},
                           std::vector<std::string>{"explain", "matmul/smem_tile16", "--measure"}}) {
    const Result r = run_cli(args);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}
