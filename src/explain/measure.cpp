#include "explain/measure.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include <unistd.h>

#include "bench/bench.hpp"
#include "core/device_info.hpp"
#include "explain/resources.hpp"

namespace smemlab::explain {
namespace {

// Wavefronts from each instruction's addresses (SASS-level, an instrumented pass) ...
constexpr const char* kLd = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* kSt = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
// ... and the writes of cp.async (LDGSTS), counted neither as loads nor as stores.
constexpr const char* kCp = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum";
// The L1's own counters.
constexpr const char* kL1Ld = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* kL1St = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
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
// Printed by each bench process before it starts, to tell its launches apart.
constexpr std::string_view kRequestTag = "smemlab-measure-request ";

std::string stall_metric(const char* stall) {
  return fmt::format("{}{}_per_issue_active.ratio", kStallPrefix, stall);
}

std::string metric_list(Counters counters) {
  std::vector<std::string> metrics{kLd, kSt, kCp, kL1Ld, kL1St, kGrid};
  if (counters == Counters::kAll) {
    metrics.insert(metrics.end(), {kLdConflicts, kStConflicts, kDramRead, kDramWrite, kOccupancy});
    for (const char* stall : kStalls) metrics.push_back(stall_metric(stall));
  }
  return fmt::format("{}", fmt::join(metrics, ","));
}

// For a shell's single quotes.
std::string shell_quoted(std::string_view word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The kernel's own name in a model's "name<...>(" form: what ncu's filter looks for.
std::string function_name(const std::string& kernel) {
  const std::string name = comparable_kernel_name(kernel);
  return name.substr(0, name.find_first_of("<("));
}

// Where `wanted` starts an identifier in `name`, or npos. The model's name may follow a
// qualifier this normalisation does not know.
std::size_t find_kernel(const std::string& name, const std::string& wanted) {
  for (std::size_t at = name.find(wanted); at != std::string::npos; at = name.find(wanted, at + 1))
    if (at == 0 || (std::isalnum(static_cast<unsigned char>(name[at - 1])) == 0 && name[at - 1] != '_'))
      return at;
  return std::string::npos;
}

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

std::vector<MeasureResult> measure(std::span<const MeasureRequest> requests, int device,
                                   Counters counters) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  // One bench process a request, each printing its tag and process ID first (exec keeps it).
  std::string script;
  std::set<std::string> functions;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const MeasureRequest& r = requests[i];
    functions.insert(function_name(r.model.kernel));
    script += fmt::format(
        "sh -c 'echo \"{}{} $$\"; exec \"$0\" \"$@\" >/dev/null' {} --device {} bench --variant {} --size {} "
        "--type {} --reps 1 --warmup 0 --quiet --format csv\n",
        kRequestTag, i, shell_quoted(self), device, shell_quoted(r.variant->id()), shell_quoted(r.shape.label()),
        dtype_name(r.type));
  }
  const std::filesystem::path script_path =
      std::filesystem::temp_directory_path() / fmt::format("smemlab-measure-{}.sh", ::getpid());
  {
    std::ofstream file(script_path);
    file << script;
    if (!file) throw std::runtime_error("could not write " + script_path.string());
  }
  // Only the models' kernels are profiled: not the inputs' fills, the L2 flushes or references.
  const std::string command = fmt::format(
      "ncu --clock-control none --target-processes all --kernel-name-base demangled "
      "--kernel-name 'regex:({})[<(]' --metrics {} --csv sh {} 2>&1",
      fmt::join(functions, "|"), metric_list(counters), shell_quoted(script_path.string()));
  std::string text;
  try {
    text = run(command);
  } catch (...) {
    std::filesystem::remove(script_path);
    throw;
  }
  std::filesystem::remove(script_path);

  std::map<std::string, std::size_t> request_of_process;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.starts_with(kRequestTag)) {
      std::istringstream tag(line.substr(kRequestTag.size()));
      std::size_t index = 0;
      std::string pid;
      if (tag >> index >> pid && index < requests.size()) request_of_process[pid] = index;
    }
  const auto header = text.find("\"ID\"");
  if (header == std::string::npos)
    throw std::runtime_error("ncu printed no counters: " + text.substr(text.size() > 300 ? text.size() - 300 : 0));

  // Per request: launch ID -> (kernel name, metric -> value), for the launches of its model's kernel.
  using Launch = std::pair<std::string, std::map<std::string, double>>;
  std::vector<std::map<std::string, Launch>> launches(requests.size());
  std::vector<std::set<std::string>> seen(requests.size());  // every kernel ncu named, for the error
  std::istringstream rows(text.substr(header));
  std::getline(rows, line);
  const std::vector<std::string> columns = csv_fields(line);
  const auto column = [&](std::string_view name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  const std::size_t id = column("ID");
  const std::size_t process = column("Process ID");
  const std::size_t kernel = column("Kernel Name");
  const std::size_t metric = column("Metric Name");
  const std::size_t value = column("Metric Value");
  while (std::getline(rows, line)) {
    const auto f = csv_fields(line);
    if (f.size() <= std::max({id, process, kernel, metric, value})) continue;
    const auto owner = request_of_process.find(f[process]);
    if (owner == request_of_process.end()) continue;
    const std::size_t r = owner->second;
    const std::string name = comparable_kernel_name(f[kernel]);
    seen[r].insert(name.substr(0, name.find('(')));
    if (find_kernel(name, comparable_kernel_name(requests[r].model.kernel)) == std::string::npos) continue;
    std::string number = f[value];
    number.erase(std::remove(number.begin(), number.end(), ','), number.end());
    char* end = nullptr;
    const double parsed = std::strtod(number.c_str(), &end);
    auto& launch = launches[r][f[id]];
    launch.first = name;
    if (end != number.c_str()) launch.second[f[metric]] = parsed;
  }

  std::vector<MeasureResult> results(requests.size());
  for (std::size_t r = 0; r < requests.size(); ++r) {
    if (launches[r].empty()) {
      results[r].error = fmt::format("ncu profiled no launch of {} for {} (it saw: {})",
                                     comparable_kernel_name(requests[r].model.kernel),
                                     requests[r].variant->id(), fmt::join(seen[r], ", "));
      continue;
    }
    const auto total = [](const auto& m) {
      return (m.contains(kLd) ? m.at(kLd) : 0) + (m.contains(kSt) ? m.at(kSt) : 0);
    };
    const auto best = std::max_element(launches[r].begin(), launches[r].end(), [&](const auto& a, const auto& b) {
      return total(a.second.second) < total(b.second.second);
    });
    const auto& m = best->second.second;
    const auto get = [&](const std::string& name) { return m.contains(name) ? m.at(name) : std::nan(""); };
    Measurement out{best->second.first, get(kGrid), get(kLd), get(kSt), get(kCp), get(kL1Ld), get(kL1St),
                    get(kLdConflicts), get(kStConflicts), get(kDramRead) + get(kDramWrite),
                    get(kOccupancy), {}};
    if (counters == Counters::kAll) {
      for (const char* stall : kStalls) out.stalls.emplace_back(stall, get(stall_metric(stall)));
      std::sort(out.stalls.begin(), out.stalls.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      out.stalls.resize(std::min<std::size_t>(out.stalls.size(), 3));
    }
    results[r].measurement = out;
  }
  return results;
}

Measurement measure(const MeasureRequest& request, int device) {
  MeasureResult result = std::move(measure(std::span(&request, 1), device, Counters::kAll).front());
  if (!result.measurement) throw std::runtime_error(result.error);
  return *result.measurement;
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

bool within_tolerance(double predicted, double measured) {
  return measured == 0 ? predicted == 0 : std::abs(predicted / measured - 1) <= kWavefrontTolerance;
}

bool copies_within_tolerance(double predicted, double measured) {
  return predicted == 0 || within_tolerance(predicted, measured);
}

}  // namespace smemlab::explain
