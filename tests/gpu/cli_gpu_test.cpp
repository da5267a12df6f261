// The command line on a real device: info, a small verified bench, and the errors that need
// the device's properties to detect.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/gpu.hpp"
#include "support/run_cli.hpp"

namespace {

using Result = smemlab::testing::CliResult;
using smemlab::testing::run_cli;

TEST(CliGpu, InfoDescribesTheDevice) {
  SMEMLAB_REQUIRE_GPU();
  const Result r = run_cli({"info"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("compute capability"), std::string::npos);
  EXPECT_NE(r.out.find("L2 cache"), std::string::npos);
}

TEST(CliGpu, SmallBenchIsVerifiedAndReferenceComesFirst) {
  SMEMLAB_REQUIRE_GPU();
  const Result r = run_cli({"bench", "--variant", "naive,thread_tile_1d", "--size", "33x31x65,100",
                        "--reps", "3", "--warmup", "1", "--format", "json", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["rows"].size(), 6U);
  EXPECT_EQ(doc["rows"][0]["variant"], "cublas");
  EXPECT_EQ(doc["rows"][0]["vs_reference"], 1.0);
  for (const auto& row : doc["rows"]) {
    EXPECT_EQ(row["verified"], true) << row.dump();
    EXPECT_GT(row["median_ms"].get<double>(), 0.0);
    EXPECT_LE(row["min_ms"].get<double>(), row["median_ms"].get<double>());
    EXPECT_LE(row["median_ms"].get<double>(), row["max_ms"].get<double>());
  }
}

TEST(CliGpu, DeviceDependentErrorsAreUsageErrors) {
  SMEMLAB_REQUIRE_GPU();
  for (const auto& args :
       {std::vector<std::string>{"bench", "--variant", "naive", "--size", "300000"},
        std::vector<std::string>{"--device", "999", "info"},
        std::vector<std::string>{"bench", "--device", "999", "--size", "64"}}) {
    const Result r = run_cli(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
