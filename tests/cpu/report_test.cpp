#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "smemlab/error.hpp"
#include "bench/report.hpp"

using namespace smemlab;

namespace {

BenchReport sample_report() {
  BenchReport r;
  r.device.name = "Test GPU";
  r.device.cc_major = 9;
  for (const char* variant : {"cublas", "naive"}) {
    BenchRow row;
    row.family = "matmul";
    row.variant = variant;
    row.dtype = "float";
    row.size = "1024";
    row.time = {2.0, 1.5, 3.0};
    row.throughput = 1073.7;
    row.throughput_unit = "GFLOP/s";
    row.vs_reference = 0.5;
    row.pct_of_peak = 1.6;
    row.verified = true;
    row.error = 1e-7;
    row.max_error = 3e-7;
    row.checked_against = "cpu-fp64";
    r.rows.push_back(row);
  }
  r.rows[1].verified = false;
  r.rows[1].error = std::numeric_limits<double>::infinity();
  return r;
}

}  // namespace

TEST(Report, FormatNames) {
  EXPECT_EQ(parse_format("table"), Format::table);
  EXPECT_EQ(parse_format("csv"), Format::csv);
  EXPECT_EQ(parse_format("json"), Format::json);
  EXPECT_EQ(parse_format("markdown"), Format::markdown);
  EXPECT_THROW((void)parse_format("xml"), UsageError);
}

TEST(Report, JsonHasTheDocumentedFieldsAndTheDevice) {
  const auto doc = nlohmann::json::parse(render(sample_report(), Format::json));
  EXPECT_EQ(doc["device"]["name"], "Test GPU");
  ASSERT_EQ(doc["rows"].size(), 2U);
  const auto& row = doc["rows"][0];
  for (const char* key : {"family", "variant", "dtype", "size", "median_ms", "min_ms", "max_ms",
                          "throughput", "vs_reference", "pct_of_peak", "copy_gbs", "vs_copy",
                          "verified", "error"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_TRUE(row["copy_gbs"].is_null());  // not measured for this row
  EXPECT_EQ(row["median_ms"], 2.0);
  EXPECT_EQ(row["verified"], true);
  EXPECT_TRUE(doc["rows"][1]["error"].is_null());  // an infinite error is not a number in JSON
  EXPECT_EQ(doc["rows"][1]["verified"], false);
}

TEST(Report, CsvHasAHeaderAndOneLinePerRow) {
  const std::string csv = render(sample_report(), Format::csv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "family,variant,dtype,size,median_ms,min_ms,max_ms,throughput,throughput_unit,"
            "vs_reference,pct_of_peak,copy_gbs,vs_copy,predicted_wavefronts,verified,error,max_error,"
            "checked_against");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3);
  EXPECT_NE(csv.find("matmul,naive,float,1024,2.0000"), std::string::npos);
}

TEST(Report, TablesMarkFailedRows) {
  const std::string table = render(sample_report(), Format::table);
  EXPECT_NE(table.find("Test GPU"), std::string::npos);
  EXPECT_NE(table.find("NO"), std::string::npos);
  const std::string md = render(sample_report(), Format::markdown);
  EXPECT_EQ(md.rfind("| family", 0), 0U);
  EXPECT_NE(md.find("| --"), std::string::npos);
  EXPECT_EQ(std::count(md.begin(), md.end(), '\n'), 4);
}
