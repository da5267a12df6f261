#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/registry.hpp"
#include "core/device_info.hpp"
#include "core/text.hpp"
#include "matmul/tuning.hpp"
#include "support/run_cli.hpp"

namespace {

using Result = smemlab::testing::CliResult;
using smemlab::testing::lines_of;
using smemlab::testing::run_cli;

// The words in which CLI11 reports its errors; none may reach the user.
bool has_parser_wording(const std::string& err) {
  for (const char* words :
       {"Could not convert", "is not in", "is required", "not expected", "At Most", "At Least",
        "Expected", "required but", "ArgumentMismatch", "following argument", "INT", "TEXT",
        "FLOAT", "Run with --help", "could not be"})
    if (err.find(words) != std::string::npos) return true;
  return false;
}

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
  EXPECT_NE(count.err.find("--count 'abc'"), std::string::npos) << count.err;
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

TEST(Cli, AnUnknownSubcommandIsNamedWithTheSubcommandsAndTheClosest) {
  for (const auto& args :
       {std::vector<std::string>{"bnech"}, std::vector<std::string>{"help", "bnech"}}) {
    const Result r = run_cli(args);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("unknown subcommand 'bnech'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("did you mean 'bench'?"), std::string::npos) << r.err;
    for (const char* sub : {"list", "info", "bench", "sum", "banks", "explain", "help"})
      EXPECT_NE(r.err.find(sub), std::string::npos) << sub << " missing from " << r.err;
  }
  EXPECT_EQ(run_cli({"frobnicate"}).err.find("did you mean"), std::string::npos);  // nothing close
  const Result none = run_cli({});
  EXPECT_NE(none.err.find("a subcommand is needed: list, info, bench"), std::string::npos)
      << none.err;
  const Result option = run_cli({"bench", "--sizes", "64"});
  EXPECT_NE(option.err.find("unknown option '--sizes' for bench (did you mean '--size'?)"),
            std::string::npos)
      << option.err;
}

TEST(Cli, AMissingPositionalSaysWhatItIs) {
  const Result banks = run_cli({"banks"});
  EXPECT_EQ(banks.status, 2);
  EXPECT_EQ(
      banks.err,
      "smemlab: banks needs an access expression of tx, ty, tz, such as 'tx*32+ty' (element index; "
      "--bytes for byte addresses)\n");
  EXPECT_EQ(run_cli({"banks", "--block", "64"}).err, banks.err);
  const Result explain = run_cli({"explain"});
  EXPECT_EQ(explain.status, 2);
  EXPECT_NE(explain.err.find("explain needs family/variant"), std::string::npos) << explain.err;
}

TEST(Cli, HelpForASubcommand) {
  const Result r = run_cli({"help", "bench"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("smemlab bench"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--size"), std::string::npos) << r.out;
  // --help wins over what else is wrong, as in CLI11.
  EXPECT_EQ(run_cli({"bench", "--reps", "abc", "--help"}).status, 0);
}

// Every option of every subcommand with a value it cannot take, without its value, and every flag
// with a value: one line in smemlab's words that names what was wrong, never the parser's words.
TEST(Cli, EveryBadValueIsReportedInSmemlabsWords) {
  struct Case {
    std::vector<std::string> args;
    std::string names;  // what the message must contain
  };
  const std::map<std::string, std::vector<Case>> bad{
      {"",
       {{{"--device", "abc", "list"}, "--device 'abc': a CUDA device ordinal"},
        {{"--device", "-1", "list"}, "--device -1"},
        {{"list", "--device"}, "--device needs a value"}}},
      {"list",
       {{{"list", "--family", "nope"}, "unknown family 'nope'"},
        {{"list", "--family"}, "--family needs a value: family names"},
        {{"list", "--names=yes"}, "--names takes no value"}}},
      {"bench",
       {{{"bench", "--family", "nope"}, "unknown family 'nope'"},
        {{"bench", "--variant", "nope"}, "'nope'"},
        {{"bench", "--size", "abc"}, "'abc'"},
        {{"bench", "--type", "int"}, "'int'"},
        {{"bench", "--reps", "abc"}, "--reps 'abc': a positive integer"},
        {{"bench", "--reps", "2.5"}, "--reps '2.5': a positive integer"},
        {{"bench", "--reps", "99999999999"}, "--reps '99999999999'"},
        {{"bench", "--warmup", "x"}, "--warmup 'x': an integer, 0 or more"},
        {{"bench", "--full=1"}, "--full takes no value"},
        {{"bench", "--format", "xml"}, "'xml'"},
        {{"bench", "--output", "/no/such/dir/out.csv"}, "--output"},
        {{"bench", "--quiet=no"}, "--quiet takes no value"},
        {{"bench", "--transpose", "c"}, "--transpose takes a, b or ab (got 'c')"},
        {{"bench", "--family", "matmul-tiles", "--transpose", "b"}, "--transpose applies to the matmul"},
        {{"bench", "--size"}, "--size needs a value: sizes N, RxC or MxNxK"},
        {{"bench", "--reps"}, "--reps needs a value: a positive integer"}}},
      {"sum",
       {{{"sum", "--value", "abc"}, "--value 'abc': a finite number"},
        {{"sum", "--value", "inf"}, "--value 'inf': a finite number"},
        {{"sum", "--count", "x"}, "--count 'x'"},
        {{"sum", "--type", "int"}, "'int'"},
        {{"sum", "--value"}, "--value needs a value"}}},
      {"banks",
       {{{"banks", "--expression", "tx+"}, "tx+"},
        {{"banks", "tx", "--block", "a"}, "--block"},
        {{"banks", "tx", "--width", "four"}, "--width 'four': bytes per access"},
        {{"banks", "tx", "--instruction", "mov"}, "--instruction"},
        {{"banks", "tx", "--bytes=1"}, "--bytes takes no value"},
        {{"banks", "tx", "--base", "1.5"}, "--base '1.5'"},
        {{"banks", "tx", "--swizzle", "x"}, "--swizzle 'x'"},
        {{"banks", "tx", "--bits", "sixty"}, "--bits 'sixty': 32 or 64"},
        {{"banks", "tx", "--map=1"}, "--map takes no value"},
        {{"banks", "tx", "--map", "--warp", "w"}, "--warp 'w'"},
        {{"banks", "tx", "--format", "xml"}, "'xml'"},
        {{"banks", "tx", "--width"}, "--width needs a value: bytes per access"},
        {{"banks", "tx", "ty"}, "unexpected argument 'ty': banks takes one expression"}}},
      {"explain",
       {{{"explain", "matmul/nope"}, "'matmul/nope'"},
        {{"explain", "matmul/naive", "--size", "x"}, "'x'"},
        {{"explain", "matmul/naive", "--type", "int"}, "'int'"},
        {{"explain", "matmul/naive", "--arch", "x"}, "--arch"},
        {{"explain", "matmul/naive", "--format", "xml"}, "'xml'"},
        {{"explain", "matmul/naive", "--measure=1"}, "--measure takes no value"},
        {{"explain", "matmul/naive", "--size"}, "--size needs a value"},
        {{"explain", "matmul/naive", "matmul/naive"}, "unexpected argument"},
        {{"explain", "--all=1"}, "--all takes no value"},
        {{"explain", "--all", "--type", "half"}, "explain --all takes no variant, --size or --type"}}},
      {"help",
       {{{"help", "nope"}, "unknown subcommand 'nope'"},
        {{"help", "bench", "list"}, "unexpected argument 'list': help takes one subcommand"}}},
  };
  for (const auto& [sub, cases] : bad) {
    std::set<std::string> covered;
    for (const auto& c : cases) {
      const Result r = run_cli(c.args);
      std::string line;
      for (const auto& a : c.args) line += a + " ";
      EXPECT_EQ(r.status, 2) << line << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << line << r.err;
      EXPECT_NE(r.err.find(c.names), std::string::npos) << line << r.err;
      EXPECT_FALSE(has_parser_wording(r.err)) << line << r.err;
      for (const auto& a : c.args)
        if (a.starts_with("--")) covered.insert(a.substr(0, a.find('=')));
    }
    // Every option the subcommand's help lists has a case above.
    const Result help = run_cli(sub.empty() ? std::vector<std::string>{"--help"}
                                            : std::vector<std::string>{sub, "--help"});
    std::string text = help.out;
    if (sub.empty()) text = text.substr(0, text.find("Subcommands:"));
    const std::regex option_form(R"((^|[ ,])(--[a-z][a-z-]*))");
    std::size_t listed = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), option_form), end; it != end; ++it) {
      const std::string option = (*it)[2];
      ++listed;
      if (option != "--help" && option != "--version") {
        EXPECT_TRUE(covered.contains(option)) << "no bad value for " << sub << " " << option;
      }
    }
    EXPECT_GT(listed, 0U) << sub;
  }
}

TEST(Cli, DoubleDashEndsTheOptions) {
  const Result plain = run_cli({"banks", "-tx+64"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  for (const auto& args :
       {std::vector<std::string>{"banks", "--", "-tx+64"},
        std::vector<std::string>{"banks", "--expression=-tx+64"},
        std::vector<std::string>{"banks", "--expression", "-tx+64"},
        std::vector<std::string>{"banks", "--block", "32", "--", "-tx+64"},
        std::vector<std::string>{"banks", "--width", "4", "--format", "table", "--", "-tx+64"}}) {
    const Result r = run_cli(args);
    EXPECT_EQ(r.status, 0) << args.back() << ": " << r.err;
    EXPECT_EQ(r.out, plain.out);
  }
  // Options before `--` still apply; after it, even --block is the expression's.
  const Result shaped = run_cli({"banks", "--block", "64", "--format", "json", "--", "-tx+64"});
  ASSERT_EQ(shaped.status, 0) << shaped.err;
  const auto doc = nlohmann::json::parse(shaped.out);
  EXPECT_EQ(doc["block"][0], 64);
  EXPECT_EQ(doc["expression"], "-tx+64");
  const Result after = run_cli({"banks", "--", "-tx+64", "--block", "64"});
  EXPECT_EQ(after.status, 2);
  EXPECT_NE(after.err.find("unexpected argument '--block'"), std::string::npos) << after.err;
  // A value that starts with '-' is taken as the option's value, as getopt does.
  const Result base = run_cli({"banks", "tx", "--base", "-128", "--format", "json"});
  EXPECT_EQ(base.status, 2);  // a negative address, reported as such: the value was read
  EXPECT_NE(base.err.find("negative"), std::string::npos) << base.err;
  EXPECT_EQ(run_cli({"explain", "--", "matmul/naive"}).status, 0);
}

TEST(Cli, RepeatedOptionsKeepTheLastValueAndListsKeepEvery) {
  const Result width =
      run_cli({"banks", "tx", "--width", "16", "--width", "8", "--format", "json"});
  ASSERT_EQ(width.status, 0) << width.err;
  EXPECT_NE(width.out.find("\"width\": 8"), std::string::npos) << width.out;
  const Result list = run_cli({"list", "--family", "transpose", "--family", "reduction"});
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("transpose/naive_row"), std::string::npos);
  EXPECT_NE(list.out.find("reduction/cub"), std::string::npos);
  EXPECT_EQ(list.out.find("matmul/"), std::string::npos);
  // Both sizes are read: the second is the one reported.
  EXPECT_NE(run_cli({"bench", "--size", "64", "--size", "0"}).err.find("'0'"), std::string::npos);
}

namespace {

void expect_fits(const std::string& text, const std::string& what) {
  for (const auto& line : lines_of(text))
    EXPECT_LE(smemlab::columns(line), 100U) << what << ": " << line;
}

}  // namespace

// Each variant with its step, the descriptions wrapped within 100 columns; a description that
// builds on an earlier step ("06 with ...") names a step shown before it in its family.
TEST(CliList, FitsOneHundredColumnsAndShowsTheSteps) {
  const Result all = run_cli({"list"});
  ASSERT_EQ(all.status, 0);
  expect_fits(all.out, "list");
  EXPECT_NE(all.out.find("Not in a default run: matmul-tiles"), std::string::npos);
  for (const smemlab::BenchFamily* f : smemlab::families()) {
    const Result one = run_cli({"list", "--family", std::string(f->name())});
    ASSERT_EQ(one.status, 0) << f->name();
    expect_fits(one.out, std::string(f->name()));
    if (f->spec().listing != nullptr) continue;
    std::set<int> earlier;
    for (const auto& v : f->variants()) {
      const std::string step = v.step() ? fmt::format("{:02}", *v.step()) : "  ";
      EXPECT_NE(one.out.find(step + "  " + v.id() + " "), std::string::npos) << v.id() << "\n"
                                                                             << one.out;
      EXPECT_NE(all.out.find(step + "  " + v.id() + " "), std::string::npos) << v.id();
      const std::string_view d = v.description;
      if (d.size() > 3 && std::isdigit(d[0]) && std::isdigit(d[1]) && d[2] == ' ') {
        EXPECT_TRUE(earlier.contains(std::stoi(std::string(d.substr(0, 2)))))
            << v.id() << ": " << d;
      }
      if (v.step()) earlier.insert(*v.step());
    }
  }
}

TEST(CliList, NamesAreOneFullNameALine) {
  std::string expected;
  for (const auto& v : smemlab::registered_variants()) expected += v.id() + "\n";
  EXPECT_EQ(run_cli({"list", "--names"}).out, expected);
  const Result tiles = run_cli({"list", "--family", "matmul-tiles", "--names"});
  const auto names = lines_of(tiles.out);
  EXPECT_EQ(names.size(), smemlab::find_family("matmul-tiles").variants().size());
  // What scripts/gpu-check.sh takes: each configuration with raster group 8 and split-K of 3 and
  // 64 slices and the last-wave split.
  const std::regex sanitized(R"(.*/g8/(k3|k64|lw)$)");
  EXPECT_EQ(std::count_if(names.begin(), names.end(),
                          [&](const auto& n) { return std::regex_match(n, sanitized); }),
            static_cast<long>(3 * smemlab::matmul::tile_configs().size()));
}

// The sweep's names are grouped by configuration, after a legend of every part of them; each
// configuration's name says what its shape is.
TEST(CliList, TheTileSweepIsGroupedWithALegend) {
  const Result r = run_cli({"list", "--family", "matmul-tiles"});
  ASSERT_EQ(r.status, 0);
  EXPECT_LT(lines_of(r.out).size(), 100U);
  for (const char* part : {"BMxBNxBK ", "sS ", "wWMxWN ", "tTMxTN ", "_zz ", "_b1 ", "g0 ", "g8 ",
                           "k1 ", "kN ", "lw ", "align-b "})
    EXPECT_NE(r.out.find(std::string("\n  ") + part), std::string::npos)
        << part << " has no legend";
  const std::regex config_form(R"((\d+)x(\d+)x(\d+)_s(\d+)_w(\d+)x(\d+)_t(\d+)x(\d+)(_zz)?(_b1)?)");
  for (const auto config : smemlab::matmul::tile_configs()) {
    std::smatch m;
    const std::string name(config);
    ASSERT_TRUE(std::regex_match(name, m, config_form))
        << name << " has a part the legend does not explain";
    const auto t = smemlab::matmul::tile_shape(config);
    const auto at = [&](int i) { return std::stoi(m[i]); };
    EXPECT_EQ(at(1), t.bm) << name;
    EXPECT_EQ(at(2), t.bn) << name;
    EXPECT_EQ(at(3), t.bk) << name;
    EXPECT_EQ(at(4), t.stages) << name;
    EXPECT_EQ(32 * (t.bm / at(5)) * (t.bn / at(6)), t.threads) << name;  // warps of WM x WN
    EXPECT_EQ(at(5) * at(6), 32 * at(7) * at(8)) << name;                // lanes of TM x TN
    if (m[10].matched) {
      EXPECT_EQ(t.blocks_per_sm, 1) << name;
    }
    EXPECT_NE(r.out.find(fmt::format("\n{}: {} threads, {} per SM\n", name, t.threads,
                                     smemlab::count_of(t.blocks_per_sm, "block"))),
              std::string::npos)
        << name;
  }
}
