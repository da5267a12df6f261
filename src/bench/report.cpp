#include "bench/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/text.hpp"
#include "smemlab/error.hpp"

namespace smemlab {
namespace {

constexpr std::array<std::string_view, 20> kColumns{
    "family",       "variant",     "dtype",    "size",     "median_ms",
    "min_ms",       "max_ms",      "host_ms",  "throughput", "throughput_unit", "vs_reference",
    "pct_of_peak",  "copy_gbs",    "vs_copy",  "predicted_wavefronts", "verified",
    "error",        "max_error",   "checked_against", "reference"};

// Columns read as text (left-aligned); the rest are numbers (right-aligned).
bool is_text_column(std::size_t i) {
  const auto name = kColumns[i];
  return name == "family" || name == "variant" || name == "dtype" || name == "size" ||
         name == "throughput_unit" || name == "verified" || name == "checked_against" || name == "reference";
}

std::string optional_number(double v, const char* spec) {
  return std::isnan(v) ? std::string("-") : fmt::format(fmt::runtime(spec), v);
}

std::vector<std::string> cells(const BenchRow& r) {
  return {r.family,
          r.variant,
          r.dtype,
          r.size,
          fmt::format("{:.4f}", r.time.median_ms),
          fmt::format("{:.4f}", r.time.min_ms),
          fmt::format("{:.4f}", r.time.max_ms),
          optional_number(r.time.host_ms, "{:.4f}"),
          fmt::format("{:.{}f}", r.throughput, r.throughput < 10 ? 3 : 1),
          r.throughput_unit,
          fmt::format("{:.3f}", r.vs_reference),
          fmt::format("{:.1f}", r.pct_of_peak),
          optional_number(r.copy_gbs, "{:.1f}"),
          optional_number(r.vs_copy, "{:.3f}"),
          optional_number(r.predicted_wavefronts, "{:.0f}"),
          r.verified ? "yes" : "NO",
          fmt::format("{:.2e}", r.error),
          fmt::format("{:.2e}", r.max_error),
          r.checked_against,
          r.reference ? "yes" : "no"};
}

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"ordinal", d.ordinal},
          {"name", d.name},
          {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
          {"sms", d.sms},
          {"sm_clock_mhz", d.sm_clock_khz / 1000.0},
          {"memory_clock_mhz", d.mem_clock_khz / 1000.0},
          {"memory_bus_bits", d.bus_width_bits},
          {"global_memory_bytes", d.global_mem_bytes},
          {"shared_memory_per_block_bytes", d.smem_per_block},
          {"shared_memory_per_block_optin_bytes", d.smem_per_block_optin},
          {"shared_memory_per_sm_bytes", d.smem_per_sm},
          {"l2_bytes", d.l2_bytes},
          {"fp32_peak_gflops", d.fp32_peak_gflops},
          {"dram_peak_gbs", d.dram_peak_gbs},
          {"cluster_blocks", d.cluster_blocks}};
}

std::string render_json(const BenchReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : report.rows) {
    const auto nullable = [](double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); };
    rows.push_back({{"family", r.family},
                    {"variant", r.variant},
                    {"dtype", r.dtype},
                    {"size", r.size},
                    {"median_ms", r.time.median_ms},
                    {"min_ms", r.time.min_ms},
                    {"max_ms", r.time.max_ms},
                    {"host_ms", nullable(r.time.host_ms)},
                    {"throughput", r.throughput},
                    {"throughput_unit", r.throughput_unit},
                    {"vs_reference", r.vs_reference},
                    {"pct_of_peak", r.pct_of_peak},
                    {"copy_gbs", nullable(r.copy_gbs)},
                    {"vs_copy", nullable(r.vs_copy)},
                    {"predicted_wavefronts", nullable(r.predicted_wavefronts)},
                    {"verified", r.verified},
                    {"error", r.error},  // non-finite errors become null
                    {"max_error", r.max_error},
                    {"checked_against", r.checked_against},
                    {"reference", r.reference},
                    {"library", r.library}});
  }
  nlohmann::json variants = nlohmann::json::array();
  for (const VariantInfo& v : report.variants) {
    nlohmann::json from = nlohmann::json::array();
    for (const Tutorial* t : v.tutorials) from.push_back(t->title);
    variants.push_back({{"family", v.family},
                        {"name", v.name},
                        {"description", v.description},
                        {"reference", v.reference},
                        {"tutorials", from}});
  }
  const nlohmann::json doc{{"device", device_json(report.device)},
                           {"options", {{"reps", report.options.reps},
                                        {"warmup", report.options.warmup},
                                        {"random_seed", report.options.random_seed ? nlohmann::json(*report.options.random_seed)
                                                                                   : nlohmann::json()},
                                        {"transpose_a", report.options.transpose_a},
                                        {"transpose_b", report.options.transpose_b}}},
                           {"variants", variants},
                           {"rows", rows}};
  return doc.dump(2) + "\n";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string render_csv(const BenchReport& report) {
  std::string out = fmt::format("{}\n", fmt::join(kColumns, ","));
  for (const auto& r : report.rows) {
    std::vector<std::string> fields;
    for (const auto& cell : cells(r)) fields.push_back(csv_field(cell));
    out += fmt::format("{}\n", fmt::join(fields, ","));
  }
  return out;
}

// Fixed-width text table (markdown == false) or a GitHub markdown table.
std::string render_grid(const BenchReport& report, bool markdown) {
  std::vector<std::vector<std::string>> grid;
  grid.emplace_back(kColumns.begin(), kColumns.end());
  for (const auto& r : report.rows) grid.push_back(cells(r));
  std::vector<std::size_t> width(kColumns.size(), 0);
  for (const auto& row : grid)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  const auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool text = is_text_column(i);
      out += markdown ? "| " : (i ? "  " : "");
      out += text ? fmt::format("{:<{}}", row[i], width[i]) : fmt::format("{:>{}}", row[i], width[i]);
      if (markdown) out += " ";
    }
    out += markdown ? "|\n" : "\n";
  };
  line(grid.front());
  if (markdown) {
    for (std::size_t i = 0; i < width.size(); ++i) {
      out += "| " + std::string(width[i] - 1, '-') + (is_text_column(i) ? "-" : ":") + " ";
    }
    out += "|\n";
  }
  for (std::size_t r = 1; r < grid.size(); ++r) line(grid[r]);
  return out;
}

// The summary: per family and type, one line per variant and one column per size; the
// reference's line gives its throughput, the others their ratio to it.
struct SummarySection {
  std::string title;  // family and type
  std::string unit;   // of the reference's throughput
  std::vector<std::string> sizes;
  std::vector<std::string> variants;
  std::map<std::pair<std::string, std::string>, std::string> cells;  // (variant, size) -> text
  std::map<std::string, std::vector<double>> ratios;  // variant -> its verified ratios
};

// More sizes than this (a sweep of random shapes) print one line per size instead, a column
// per variant, and end with each variant's geometric mean and smallest ratio.
constexpr std::size_t kMaxSizeColumns = 8;

// GFLOP/s reads better as TFLOP/s at the sizes people run.
std::pair<double, std::string> summary_throughput(const BenchRow& r) {
  if (r.throughput_unit == "GFLOP/s") return {r.throughput / 1000.0, "TFLOP/s"};
  return {r.throughput, r.throughput_unit};
}

std::string ratio_text(double ratio) { return fmt::format("{:.{}f}", ratio, ratio < 0.1 ? 3 : 2); }

std::vector<SummarySection> summary_sections(const BenchReport& report) {
  std::vector<SummarySection> sections;
  const auto remember = [](std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };
  for (std::size_t begin = 0; begin < report.rows.size();) {
    // One run: a reference row and the variants measured against it at its size and type.
    std::size_t end = begin + 1;
    while (end < report.rows.size() && !report.rows[end].reference) ++end;
    const BenchRow& first = report.rows[begin];
    const std::string title = fmt::format("{} {}", first.family, first.dtype);
    auto section = std::find_if(sections.begin(), sections.end(),
                                [&](const SummarySection& s) { return s.title == title; });
    if (section == sections.end()) {
      section = sections.emplace(sections.end());
      section->title = title;
    }
    remember(section->sizes, first.size);
    std::size_t fastest = end;
    for (std::size_t i = begin; i < end; ++i) {
      const BenchRow& r = report.rows[i];
      if (!r.reference && !r.library && r.verified &&
          (fastest == end || r.vs_reference > report.rows[fastest].vs_reference))
        fastest = i;
    }
    for (std::size_t i = begin; i < end; ++i) {
      const BenchRow& r = report.rows[i];
      remember(section->variants, r.variant);
      std::string text;
      if (!r.verified) {
        text = "FAIL ";
      } else if (r.reference) {
        const auto [value, unit] = summary_throughput(r);
        section->unit = unit;
        text = value >= 100 ? fmt::format("{:.0f} ", value) : fmt::format("{:.3g} ", value);
      } else {
        text = ratio_text(r.vs_reference) + (i == fastest ? "*" : " ");
        section->ratios[r.variant].push_back(r.vs_reference);
      }
      section->cells[{r.variant, r.size}] = text;
    }
    begin = end;
  }
  return sections;
}

std::string render_sizes_as_lines(const SummarySection& s) {
  std::size_t label_width = s.title.size();
  for (const auto& size : s.sizes) label_width = std::max(label_width, size.size());
  label_width = std::max<std::size_t>(label_width, 7);  // "geomean"
  std::vector<std::size_t> widths;
  for (std::size_t v = 0; v < s.variants.size(); ++v) {
    std::size_t width = std::max<std::size_t>(s.variants[v].size() + 1, 6);
    if (v == 0) width = std::max(width, s.unit.size() + 3);
    for (const auto& [key, text] : s.cells)
      if (key.first == s.variants[v]) width = std::max(width, text.size());
    widths.push_back(width);
  }
  std::string out = fmt::format("\n{:<{}}", s.title, label_width);
  for (std::size_t v = 0; v < s.variants.size(); ++v)
    out += fmt::format("  {:>{}}", s.variants[v] + " ", widths[v]);
  out += fmt::format("\n{:<{}}  {:>{}}\n", "", label_width, "(" + s.unit + ") ", widths[0]);
  for (const auto& size : s.sizes) {
    out += fmt::format("{:<{}}", size, label_width);
    for (std::size_t v = 0; v < s.variants.size(); ++v) {
      const auto cell = s.cells.find({s.variants[v], size});
      out += fmt::format("  {:>{}}", cell == s.cells.end() ? std::string("- ") : cell->second, widths[v]);
    }
    out += "\n";
  }
  for (const bool geomean : {true, false}) {
    out += fmt::format("{:<{}}  {:>{}}", geomean ? "geomean" : "min", label_width, "", widths[0]);
    for (std::size_t v = 1; v < s.variants.size(); ++v) {
      const auto found = s.ratios.find(s.variants[v]);
      std::string text = "- ";
      if (found != s.ratios.end() && !found->second.empty()) {
        const auto& r = found->second;
        double log_sum = 0.0;
        for (const double x : r) log_sum += std::log(x);
        text = ratio_text(geomean ? std::exp(log_sum / static_cast<double>(r.size())) : *std::min_element(r.begin(), r.end())) + " ";
      }
      out += fmt::format("  {:>{}}", text, widths[v]);
    }
    out += "\n";
  }
  return out;
}

std::string render_summary(const BenchReport& report) {
  std::string out = fmt::format(
      "{} ({} SMs): median of {}, L2 flushed before each.\n"
      "First line: the reference's throughput. Others: its time over the variant's (above 1 is\n"
      "faster than the reference); * the fastest variant at that size; FAIL failed verification.\n",
      report.device.name, report.device.sms, count_of(report.options.reps, "timed run"));
  if (report.options.random_seed)
    out += fmt::format("Random shapes of seed {0}: --size random:N:{0} draws the same N again.\n",
                       *report.options.random_seed);
  for (const SummarySection& s : summary_sections(report)) {
    if (s.sizes.size() > kMaxSizeColumns) {
      out += render_sizes_as_lines(s);
      continue;
    }
    std::size_t label_width = 0;
    for (const auto& v : s.variants) label_width = std::max(label_width, v.size());
    const std::string unit = fmt::format("({})", s.unit);
    label_width = std::max(label_width, s.variants.front().size() + 1 + unit.size());
    std::vector<std::size_t> widths;
    for (const auto& size : s.sizes) {
      std::size_t width = std::max<std::size_t>(size.size() + 1, 6);
      for (const auto& [key, text] : s.cells)
        if (key.second == size) width = std::max(width, text.size());
      widths.push_back(width);
    }
    out += fmt::format("\n{:<{}}", s.title, label_width);
    for (std::size_t c = 0; c < s.sizes.size(); ++c) out += fmt::format("  {:>{}}", s.sizes[c] + " ", widths[c]);
    out += "\n";
    for (std::size_t v = 0; v < s.variants.size(); ++v) {
      const std::string& name = s.variants[v];
      out += fmt::format("{:<{}}", v == 0 ? name + " " + unit : name, label_width);
      for (std::size_t c = 0; c < s.sizes.size(); ++c) {
        const auto cell = s.cells.find({name, s.sizes[c]});
        out += fmt::format("  {:>{}}", cell == s.cells.end() ? std::string("- ") : cell->second, widths[c]);
      }
      out += "\n";
    }
  }
  out += fmt::format("\n{}; every column of each: --format table, csv or json, or --output FILE.\n",
                     count_of(std::ssize(report.rows), "row"));
  return out;
}

}  // namespace

Format parse_format(std::string_view name) {
  if (name == "table") return Format::table;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  if (name == "markdown") return Format::markdown;
  if (name == "summary") return Format::summary;
  throw UsageError(fmt::format("unknown format '{}' (summary, table, csv, json, markdown)", name));
}

Format format_for_file(std::string_view path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".json") return Format::json;
  if (extension == ".csv") return Format::csv;
  if (extension == ".md") return Format::markdown;
  return Format::table;
}

std::string render(const BenchReport& report, Format format) {
  switch (format) {
    case Format::csv: return render_csv(report);
    case Format::json: return render_json(report);
    case Format::markdown: return render_grid(report, true);
    case Format::summary: return render_summary(report);
    case Format::table: break;
  }
  return fmt::format("device {}: {}\n", report.device.ordinal, report.device.name) +
         render_grid(report, false);
}

std::string describe(const DeviceInfo& d) {
  const auto kib = [](std::size_t b) { return fmt::format("{} KiB", b / 1024); };
  std::string out;
  out += fmt::format("device              {}: {}\n", d.ordinal, d.name);
  out += fmt::format("compute capability  {}.{}\n", d.cc_major, d.cc_minor);
  out += fmt::format("SMs                 {}\n", d.sms);
  out += fmt::format("SM clock (peak)     {:.0f} MHz\n", d.sm_clock_khz / 1000.0);
  out += fmt::format("memory              {:.1f} GiB, {}-bit bus, {:.0f} MHz\n",
                     static_cast<double>(d.global_mem_bytes) / (1 << 30), d.bus_width_bits,
                     d.mem_clock_khz / 1000.0);
  out += fmt::format("shared memory       {} per block ({} opt-in), {} per SM\n",
                     kib(d.smem_per_block), kib(d.smem_per_block_optin), kib(d.smem_per_sm));
  out += fmt::format("L2 cache            {}\n", kib(d.l2_bytes));
  if (d.fp32_lanes_per_sm > 0)
    out += fmt::format("FP32 peak           {:.1f} TFLOP/s ({} lanes/SM x 2 flops x clock)\n",
                       d.fp32_peak_gflops / 1000.0, d.fp32_lanes_per_sm);
  else
    out += "FP32 peak           unknown for this compute capability\n";
  out += fmt::format("DRAM peak           {:.0f} GB/s (2 x bus width x memory clock)\n",
                     d.dram_peak_gbs);
  if (d.cluster_blocks.front() > 0)
    out += fmt::format("clusters            of 1 to 8 blocks, one an SM: {} blocks at once\n",
                       fmt::join(d.cluster_blocks, " / "));
  return out;
}

void check_writable(const std::string& path) {
  if (path.empty()) return;
  const std::filesystem::path p(path);
  const auto dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError(fmt::format("--output {}: directory '{}' does not exist", path, dir.string()));
  if (std::filesystem::is_directory(p, ec)) throw UsageError(fmt::format("--output {}: is a directory", path));
  if (access(dir.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("--output {}: directory '{}' is not writable", path, dir.string()));
}

void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp{}", path, getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error(fmt::format("could not write {}", tmp));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("could not write {}: {}", path, ec.message()));
  }
}

}  // namespace smemlab
