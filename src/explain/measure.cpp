#include "explain/measure.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "bench/bench.hpp"
#include "core/device_info.hpp"
#include "explain/resources.hpp"

namespace smemlab::explain {
namespace {

constexpr const char* kLd = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* kSt = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
// The writes of cp.async (LDGSTS), counted neither as loads nor as stores.
constexpr const char* kCp = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum";
constexpr const char* kLdConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
constexpr const char* kStConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";
constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char* kGrid = "launch__grid_size";
constexpr const char* kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr const char* kStalls[] = {"barrier", "long_scoreboard", "short_scoreboard", "mio_throttle",
                                   "lg_throttle", "math_pipe_throttle", "wait", "dispatch_stall",
                                   "not_selected", "no_instruction", "selected", "misc"};

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (const char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

std::string run(const std::string& command) {
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("could not start ncu");
  std::string out;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  return out;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::error_code ec;
    if (!dir.empty() && std::filesystem::exists(std::filesystem::path(dir) / program, ec)) return true;
  }
  return false;
}

}  // namespace

std::string why_cannot_measure() {
  if (device_count() == 0) return "explain --measure needs a GPU: no CUDA device found";
  if (!on_path("ncu")) return "explain --measure needs Nsight Compute: no ncu on the PATH";
  return "";
}

Measurement measure(const VariantInfo& v, const Shape& shape, DType type, const AccessModel& model, int device) {
  std::string metrics = fmt::format("{},{},{},{},{},{},{},{},{}", kLd, kSt, kCp, kLdConflicts, kStConflicts,
                                    kDramRead, kDramWrite, kOccupancy, kGrid);
  for (const char* stall : kStalls) metrics += fmt::format(",{}{}_per_issue_active.ratio", kStallPrefix, stall);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string command = fmt::format(
      "ncu --clock-control none --kernel-name-base demangled --kernel-name regex:smemlab:: --metrics {} --csv "
      "'{}' --device {} bench --variant '{}' --size {} --type {} --reps 1 --warmup 0 --quiet --format csv 2>&1",
      metrics, self, device, v.id(), shape.label(), dtype_name(type));
  const std::string text = run(command);
  const auto header = text.find("\"ID\"");
  if (header == std::string::npos)
    throw std::runtime_error("ncu printed no counters: " + text.substr(text.size() > 300 ? text.size() - 300 : 0));

  // Launch ID -> (kernel name, metric -> value), for the launches of the model's kernel.
  const std::string wanted = comparable_kernel_name(model.kernel);
  std::map<std::string, std::pair<std::string, std::map<std::string, double>>> launches;
  std::set<std::string> seen;  // every kernel ncu named, for the error when none matches
  std::istringstream rows(text.substr(header));
  std::string line;
  std::getline(rows, line);
  const std::vector<std::string> columns = csv_fields(line);
  const auto column = [&](std::string_view name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  const std::size_t id = column("ID");
  const std::size_t kernel = column("Kernel Name");
  const std::size_t metric = column("Metric Name");
  const std::size_t value = column("Metric Value");
  while (std::getline(rows, line)) {
    const auto f = csv_fields(line);
    if (f.size() <= std::max({id, kernel, metric, value})) continue;
    const std::string name = comparable_kernel_name(f[kernel]);
    seen.insert(name.substr(0, name.find('(')));
    // The model's name may follow a qualifier this normalisation does not know: match it where
    // it starts an identifier.
    const auto at = name.find(wanted);
    if (at == std::string::npos || (at > 0 && (std::isalnum(static_cast<unsigned char>(name[at - 1])) != 0 || name[at - 1] == '_')))
      continue;
    std::string number = f[value];
    number.erase(std::remove(number.begin(), number.end(), ','), number.end());
    char* end = nullptr;
    const double parsed = std::strtod(number.c_str(), &end);
    auto& launch = launches[f[id]];
    launch.first = name;
    if (end != number.c_str()) launch.second[f[metric]] = parsed;
  }
  if (launches.empty())
    throw std::runtime_error(fmt::format("ncu profiled no launch of {} for {} (it saw: {})", wanted, v.id(),
                                         fmt::join(seen, ", ")));
  const auto total = [](const auto& m) { return (m.contains(kLd) ? m.at(kLd) : 0) + (m.contains(kSt) ? m.at(kSt) : 0); };
  const auto best = std::max_element(launches.begin(), launches.end(), [&](const auto& a, const auto& b) {
    return total(a.second.second) < total(b.second.second);
  });
  const auto& m = best->second.second;
  const auto get = [&](const char* name) { return m.contains(name) ? m.at(name) : std::nan(""); };
  Measurement out{best->second.first, get(kGrid), get(kLd), get(kSt), get(kCp), get(kLdConflicts),
                  get(kStConflicts), get(kDramRead) + get(kDramWrite), get(kOccupancy), {}};
  for (const char* stall : kStalls)
    out.stalls.emplace_back(stall, get(fmt::format("{}{}_per_issue_active.ratio", kStallPrefix, stall).c_str()));
  std::sort(out.stalls.begin(), out.stalls.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  out.stalls.resize(std::min<std::size_t>(out.stalls.size(), 3));
  return out;
}

std::optional<StepResults> time_steps(const VariantInfo& v, const Shape& shape, DType type,
                                      int device) {
  const std::optional<Step> step = describe_step(v);
  if (!step) return std::nullopt;
  BenchRequest request;
  request.variants.push_back(v.id());
  if (step->previous) request.variants.push_back(step->previous->id());
  request.sizes.push_back(shape.label());
  request.dtypes.emplace_back(dtype_name(type));
  const BenchPlan plan = plan_bench(request);
  check_fits(plan, query_device(device));
  const BenchReport report = run_bench(plan, device, [](std::string_view, bool) {});
  return results_in_run(report.rows, v, *step, shape, type, report.device.name, "",
                        plan.options.reps);
}

bool within_tolerance(double predicted_ld, double measured_ld, double predicted_st, double measured_st) {
  const bool loads = measured_ld == 0 ? predicted_ld == 0 : std::abs(predicted_ld / measured_ld - 1) <= 0.05;
  const bool stores = measured_st / 1.16 <= predicted_st && predicted_st <= 1.01 * measured_st;
  return loads && stores;
}

bool copies_within_tolerance(double predicted, double measured) {
  return predicted == 0 || (measured > 0 && std::abs(predicted / measured - 1) <= 0.05);
}

}  // namespace smemlab::explain
