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

// The L1's counters.
constexpr const char* kLd = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
constexpr const char* kL1St = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
// From each instruction's addresses (an instrumented pass): loads (ldmatrix left out), stores,
// and the writes of cp.async (LDGSTS), which count neither as loads nor as stores.
constexpr const char* kSt = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
constexpr const char* kCp = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum";
constexpr const char* kAddrLd = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
// Atomics on shared memory, the block's own (ATOMS) or a cluster's (ATOM), from the addresses.
constexpr const char* kAtom = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum";
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
// Printed by each bench process before it starts, to tell its launches apart, and after it
// if it fails.
constexpr std::string_view kProcessTag = "smemlab-measure-process ";
constexpr std::string_view kFailedTag = "smemlab-measure-failed ";

std::string stall_metric(const char* stall) {
  return fmt::format("{}{}_per_issue_active.ratio", kStallPrefix, stall);
}

std::string metric_list(Counters counters) {
  std::vector<std::string> metrics{kLd, kAddrLd, kSt, kCp, kL1St, kAtom, kGrid};
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

namespace detail {

std::vector<std::string> kernel_names(std::span<const MeasureRequest> requests) {
  std::vector<std::string> names;
  for (const MeasureRequest& r : requests) names.push_back(comparable_kernel_name(r.model.kernel));
  return names;
}

std::vector<std::vector<std::size_t>> group_requests(std::span<const MeasureRequest> requests) {
  const std::vector<std::string> wanted = kernel_names(requests);
  // A launch is attributed to the request whose kernel's name it contains (find_kernel): two
  // requests share a process only where neither name contains the other.
  const auto confusable = [&](std::size_t i, std::size_t j) {
    return find_kernel(wanted[i], wanted[j]) != std::string::npos ||
           find_kernel(wanted[j], wanted[i]) != std::string::npos;
  };
  std::vector<std::vector<std::size_t>> processes;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto fits = [&](const std::vector<std::size_t>& group) {
      const MeasureRequest& first = requests[group.front()];
      return first.variant->family == requests[i].variant->family && first.shape == requests[i].shape &&
             first.type == requests[i].type &&
             std::none_of(group.begin(), group.end(), [&](std::size_t j) { return confusable(i, j); });
    };
    const auto group = std::find_if(processes.begin(), processes.end(), fits);
    if (group == processes.end()) processes.push_back({i});
    else group->push_back(i);
  }
  return processes;
}

std::string measure_script(std::span<const MeasureRequest> requests,
                           const std::vector<std::vector<std::size_t>>& processes, const std::string& self,
                           int device) {
  // Each process prints its tag and process ID first (exec keeps the ID), and a second tag with
  // its exit status if it fails.
  std::string script;
  for (std::size_t p = 0; p < processes.size(); ++p) {
    const MeasureRequest& first = requests[processes[p].front()];
    std::vector<std::string> ids;
    for (const std::size_t i : processes[p]) ids.push_back(requests[i].variant->id());
    script += fmt::format(
        "sh -c 'echo \"{}{} $$\"; exec \"$0\" \"$@\" >/dev/null' {} --device {} bench --variant {} --size {} "
        "--type {} --reps 1 --warmup 0 --quiet --format csv || echo \"{}{} $?\"\n",
        kProcessTag, p, shell_quoted(self), device, shell_quoted(fmt::format("{}", fmt::join(ids, ","))),
        shell_quoted(first.shape.label()), dtype_name(first.type), kFailedTag, p);
  }
  return script;
}

std::vector<MeasureResult> read_measurements(const std::string& text, std::span<const MeasureRequest> requests,
                                             const std::vector<std::vector<std::size_t>>& processes,
                                             Counters counters) {
  const std::vector<std::string> wanted = kernel_names(requests);
  std::map<std::string, std::size_t> process_of_pid;
  std::map<std::size_t, int> failed;  // process -> exit status
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    for (const std::string_view tag : {kProcessTag, kFailedTag}) {
      if (!line.starts_with(tag)) continue;
      std::istringstream fields(line.substr(tag.size()));
      std::size_t index = 0;
      std::string value;
      if (!(fields >> index >> value) || index >= processes.size()) continue;
      if (tag == kProcessTag) process_of_pid[value] = index;
      else failed[index] = std::atoi(value.c_str());
    }
  }
  const auto header = text.find("\"ID\"");
  if (header == std::string::npos && process_of_pid.empty())
    throw std::runtime_error("ncu ran no bench: " + text.substr(text.size() > 300 ? text.size() - 300 : 0));

  // Per request: launch ID -> (kernel name, metric -> value), for the launches of its model's kernel.
  using Launch = std::pair<std::string, std::map<std::string, double>>;
  std::vector<std::map<std::string, Launch>> launches(requests.size());
  std::vector<std::set<std::string>> seen(requests.size());  // every kernel ncu named, for the error
  std::istringstream rows(header == std::string::npos ? std::string() : text.substr(header));
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
    const auto owner = process_of_pid.find(f[process]);
    if (owner == process_of_pid.end()) continue;
    const std::string name = comparable_kernel_name(f[kernel]);
    const std::vector<std::size_t>& group = processes[owner->second];
    for (const std::size_t i : group) seen[i].insert(name.substr(0, name.find('(')));
    const auto match = std::find_if(group.begin(), group.end(), [&](std::size_t i) {
      return find_kernel(name, wanted[i]) != std::string::npos;
    });
    if (match == group.end()) continue;
    std::string number = f[value];
    number.erase(std::remove(number.begin(), number.end(), ','), number.end());
    char* end = nullptr;
    const double parsed = std::strtod(number.c_str(), &end);
    auto& launch = launches[*match][f[id]];
    launch.first = name;
    if (end != number.c_str()) launch.second[f[metric]] = parsed;
  }

  std::vector<MeasureResult> results(requests.size());
  for (std::size_t p = 0; p < processes.size(); ++p)
    for (const std::size_t r : processes[p]) {
      if (const auto status = failed.find(p); status != failed.end()) {
        results[r].error = fmt::format("the bench that ran {} exited with status {}", requests[r].variant->id(),
                                       status->second);
        continue;
      }
      if (launches[r].empty()) {
        results[r].error = fmt::format("ncu profiled no launch of {} for {} (it saw: {})", wanted[r],
                                       requests[r].variant->id(), fmt::join(seen[r], ", "));
        continue;
      }
      const auto total = [](const auto& m) {
        double sum = 0;
        for (const char* metric : {kLd, kSt, kAtom}) sum += m.contains(metric) ? m.at(metric) : 0;
        return sum;
      };
      const auto launch_number = [](const std::string& id) { return std::strtoll(id.c_str(), nullptr, 10); };
      const auto earlier = [&](const auto& a, const auto& b) {
        return launch_number(a.first) < launch_number(b.first);
      };
      const auto fewer = [&](const auto& a, const auto& b) {
        return total(a.second.second) < total(b.second.second);
      };
      const auto best = requests[r].model.first_launch
                            ? std::min_element(launches[r].begin(), launches[r].end(), earlier)
                            : std::max_element(launches[r].begin(), launches[r].end(), fewer);
      const auto& m = best->second.second;
      const auto get = [&](const std::string& name) { return m.contains(name) ? m.at(name) : std::nan(""); };
      Measurement out{best->second.first, get(kGrid), get(kLd), get(kAddrLd), get(kSt), get(kCp), get(kL1St),
                      get(kLdConflicts), get(kStConflicts), get(kDramRead) + get(kDramWrite),
                      get(kOccupancy), {}, get(kAtom)};
      if (counters == Counters::kAll) {
        for (const char* stall : kStalls) out.stalls.emplace_back(stall, get(stall_metric(stall)));
        std::sort(out.stalls.begin(), out.stalls.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        out.stalls.resize(std::min<std::size_t>(out.stalls.size(), 3));
      }
      results[r].measurement = out;
    }
  return results;
}

}  // namespace detail

std::vector<MeasureResult> measure(std::span<const MeasureRequest> requests, int device,
                                   Counters counters) {
  const auto processes = detail::group_requests(requests);
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string path = (std::filesystem::temp_directory_path() / "smemlab-measure-XXXXXX.sh").string();
  const int fd = ::mkstemps(path.data(), 3);
  if (fd < 0) throw std::runtime_error("could not create a script file in " + path);
  const std::string script = detail::measure_script(requests, processes, self, device);
  const bool written = ::write(fd, script.data(), script.size()) == static_cast<ssize_t>(script.size());
  ::close(fd);
  std::string text;
  try {
    if (!written) throw std::runtime_error("could not write " + path);
    std::set<std::string> functions;
    for (const MeasureRequest& r : requests) functions.insert(function_name(r.model.kernel));
    // Only the models' kernels are profiled: not the inputs' fills, the L2 flushes or the
    // references.
    text = run(fmt::format(
        "ncu --clock-control none --target-processes all --kernel-name-base demangled "
        "--kernel-name 'regex:({})[<(]' --metrics {} --csv sh {} 2>&1",
        fmt::join(functions, "|"), metric_list(counters), shell_quoted(path)));
  } catch (...) {
    std::filesystem::remove(path);
    throw;
  }
  std::filesystem::remove(path);
  return detail::read_measurements(text, requests, processes, counters);
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
