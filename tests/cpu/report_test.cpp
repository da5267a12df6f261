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
    row.reference = row.variant == "cublas";
    r.rows.push_back(row);
  }
  r.rows[1].verified = false;
  r.rows[1].error = std::numeric_limits<double>::infinity();
  static constexpr const Tutorial* kFrom[] = {&tutorials::kPrimerSharedMemory};
  r.variants = {{.family = "matmul", .name = "cublas", .reference = true},
                {.family = "matmul", .name = "naive", .tutorials = kFrom}};
  return r;
}

}  // namespace

TEST(Report, FormatNames) {
  EXPECT_EQ(parse_format("table"), Format::table);
  EXPECT_EQ(parse_format("csv"), Format::csv);
  EXPECT_EQ(parse_format("json"), Format::json);
  EXPECT_EQ(parse_format("markdown"), Format::markdown);
  EXPECT_EQ(parse_format("summary"), Format::summary);
  EXPECT_EQ(format_for_file("out/r.json"), Format::json);
  EXPECT_EQ(format_for_file("r.csv"), Format::csv);
  EXPECT_EQ(format_for_file("r.md"), Format::markdown);
  EXPECT_EQ(format_for_file("results.txt"), Format::table);
  EXPECT_THROW((void)parse_format("xml"), UsageError);
}

TEST(Report, JsonHasTheDocumentedFieldsAndTheDevice) {
  const auto doc = nlohmann::json::parse(render(sample_report(), Format::json));
  EXPECT_EQ(doc["device"]["name"], "Test GPU");
  ASSERT_EQ(doc["rows"].size(), 2U);
  const auto& row = doc["rows"][0];
  for (const char* key : {"family", "variant", "dtype", "size", "median_ms", "min_ms", "max_ms", "host_ms",
                          "throughput", "vs_reference", "pct_of_peak", "copy_gbs", "vs_copy",
                          "verified", "error", "reference"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_TRUE(row["copy_gbs"].is_null());  // not measured for this row
  EXPECT_EQ(row["median_ms"], 2.0);
  EXPECT_EQ(row["verified"], true);
  EXPECT_TRUE(doc["rows"][1]["error"].is_null());  // an infinite error is not a number in JSON
  EXPECT_EQ(doc["rows"][1]["verified"], false);
  // The variants' records: which is the reference, which tutorial a step comes from.
  ASSERT_EQ(doc["variants"].size(), 2U);
  EXPECT_EQ(doc["variants"][0]["reference"], true);
  EXPECT_EQ(doc["variants"][1]["tutorials"][0], "Primer (6): Shared Memory");
}

TEST(Report, CsvHasAHeaderAndOneLinePerRow) {
  const std::string csv = render(sample_report(), Format::csv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "family,variant,dtype,size,median_ms,min_ms,max_ms,host_ms,throughput,throughput_unit,"
            "vs_reference,pct_of_peak,copy_gbs,vs_copy,predicted_wavefronts,verified,error,max_error,"
            "checked_against,reference");
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

namespace {

BenchRow summary_row(std::string variant, std::string size, double ratio, bool reference = false) {
  BenchRow row;
  row.family = "matmul";
  row.variant = std::move(variant);
  row.dtype = "float";
  row.size = std::move(size);
  row.throughput = 51234.0;
  row.throughput_unit = "GFLOP/s";
  row.vs_reference = ratio;
  row.reference = reference;
  row.verified = true;
  return row;
}

}  // namespace

TEST(Report, SummaryIsAVariantBySizeGridOfRatiosWithTheFastestMarked) {
  BenchReport r;
  r.device.name = "Test GPU";
  r.device.sms = 132;
  r.options.reps = 21;
  for (const char* size : {"1024", "4097"}) {
    r.rows.push_back(summary_row("cublas", size, 1.0, true));
    r.rows.push_back(summary_row("naive", size, 0.05));
    r.rows.push_back(summary_row("autotuned", size, std::string(size) == "1024" ? 1.06 : 0.93));
  }
  r.rows.back().verified = false;  // autotuned at 4097
  const std::string summary = render(r, Format::summary);
  EXPECT_NE(summary.find("Test GPU (132 SMs): median of 21"), std::string::npos);
  // One header line per family and type, one line per variant; sizes are columns.
  EXPECT_NE(summary.find("matmul float"), std::string::npos);
  EXPECT_EQ(summary.find("matmul float", summary.find("matmul float") + 1), std::string::npos);
  const auto line_of = [&](const std::string& start) {
    const auto at = summary.find("\n" + start);
    EXPECT_NE(at, std::string::npos) << start;
    return summary.substr(at + 1, summary.find('\n', at + 1) - at - 1);
  };
  EXPECT_NE(line_of("cublas (TFLOP/s)").find("51.2"), std::string::npos);  // GFLOP/s shown as TFLOP/s
  EXPECT_NE(line_of("autotuned").find("1.06*"), std::string::npos);         // the fastest at 1024
  EXPECT_NE(line_of("autotuned").find("FAIL"), std::string::npos);          // not verified at 4097
  EXPECT_NE(line_of("naive").find("0.050*"), std::string::npos);  // at 4097 the fastest that passed
  EXPECT_NE(summary.find("6 rows"), std::string::npos);
}

// A library's row timed beside the variants (cuDNN's attention) keeps its ratio but is never
// marked the fastest variant, and JSON says which rows are such.
TEST(Report, SummaryNeverMarksALibraryRowTheFastest) {
  BenchReport r;
  r.device.name = "Test GPU";
  r.device.sms = 132;
  r.options.reps = 21;
  r.rows.push_back(summary_row("unfused", "4096", 1.0, true));
  r.rows.push_back(summary_row("persistent", "4096", 4.8));
  r.rows.push_back(summary_row("cudnn", "4096", 5.1));
  r.rows.back().library = true;
  const std::string summary = render(r, Format::summary);
  EXPECT_NE(summary.find("4.80*"), std::string::npos) << summary;
  EXPECT_NE(summary.find("5.10 "), std::string::npos) << summary;
  EXPECT_EQ(summary.find("5.10*"), std::string::npos) << summary;
  const auto doc = nlohmann::json::parse(render(r, Format::json));
  EXPECT_EQ(doc["rows"][1]["library"], false);
  EXPECT_EQ(doc["rows"][2]["library"], true);
}

TEST(Report, SummaryCountsInTheSingularForOne) {
  BenchReport r;
  r.device.name = "Test GPU";
  r.device.sms = 132;
  r.options.reps = 1;
  r.rows.push_back(summary_row("cublas", "1024", 1.0, true));
  const std::string summary = render(r, Format::summary);
  EXPECT_NE(summary.find("median of 1 timed run,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("\n1 row;"), std::string::npos) << summary;
}
