// The benchmark's shared machinery: timing, planning a run from the command line's request,
// and driving the families over it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <random>
#include <map>
#include <optional>

#include "bench/bench.hpp"
#include "bench/device_memory.hpp"
#include "bench/registry.hpp"
#include "bench/timer.hpp"
#include "core/gemm_operands.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"

namespace smemlab {

bool BenchReport::all_verified() const {
  return std::all_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.verified; });
}

TimingStats time_launches(const std::function<void()>& launch, const BenchContext& ctx) {
  for (int i = 0; i < ctx.options.warmup; ++i) launch();
  EventTimer timer;
  std::vector<double> times;
  std::vector<double> host;
  times.reserve(static_cast<std::size_t>(ctx.options.reps));
  for (int r = 0; r < ctx.options.reps; ++r) {
    ctx.flusher.flush(ctx.stream);  // before the start event: not timed
    timer.start(ctx.stream);
    const auto called = std::chrono::steady_clock::now();
    launch();
    host.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - called).count());
    timer.stop(ctx.stream);
    times.push_back(timer.elapsed_ms());
  }
  TimingStats stats = summarize(times);
  stats.host_ms = summarize(host).median_ms;
  return stats;
}

TimingStats time_host(const std::function<void()>& run, int reps) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return summarize(times);
}

TimingStats summarize(std::vector<double>& times) {
  std::sort(times.begin(), times.end());
  const std::size_t mid = times.size() / 2;
  const double median = times.size() % 2 == 1 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
  return {median, times.front(), times.back()};
}

Rate Rate::flops(double flops, const DeviceInfo& device) {
  return {flops * 1e-9, "GFLOP/s", device.fp32_peak_gflops};
}

Rate Rate::tensor_flops(double flops, const DeviceInfo& device, DType input) {
  const double per_sm_clock = tensor_flops_per_sm_clock(device.cc_major, device.cc_minor, input);
  return {flops * 1e-9, "GFLOP/s", per_sm_clock * device.sms * device.sm_clock_khz * 1e-6};
}

Rate Rate::bytes(double bytes, const DeviceInfo& device) {
  return {bytes * 1e-9, "GB/s", device.dram_peak_gbs};
}

namespace {

// Host variants read the whole array on one core: a few runs are enough to time them.
constexpr int kHostReps = 3;

// cudaMemcpy of `bytes` from `source`: bytes read + written per second, in GB/s.
double copy_ceiling_gbs(const void* source, std::size_t bytes, const BenchContext& ctx) {
  DeviceBuffer<unsigned char> copy(bytes);
  const TimingStats t = time_launches(
      [&] {
        SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(copy.data(), source, bytes, cudaMemcpyDeviceToDevice, ctx.stream));
      },
      ctx);
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e-3) * 1e-9;
}

}  // namespace

std::vector<BenchRow> measure(std::string_view family, DType type, const Workload& work,
                              std::span<const Candidate> candidates, const BenchContext& ctx) {
  const double copy_gbs = work.copy_bytes > 0 ? copy_ceiling_gbs(work.copy_source, work.copy_bytes, ctx)
                                              : std::numeric_limits<double>::quiet_NaN();
  std::vector<BenchRow> rows;
  for (const Candidate& c : candidates) {
    ctx.progress(fmt::format("{} {} {}: {}", family, dtype_name(type), work.size, c.name), true);
    const Check check = c.check();
    BenchRow row;
    row.family = std::string(family);
    row.variant = c.name;
    row.dtype = c.dtype_label.empty() ? std::string(dtype_name(type)) : c.dtype_label;
    row.size = work.size;
    row.time = c.on_host ? time_host(c.launch, kHostReps) : time_launches(c.launch, ctx);
    const Rate rate = c.rate.value_or(work.rate);
    row.throughput = rate.work_per_run / (row.time.median_ms * 1e-3);
    row.throughput_unit = std::string(rate.unit);
    row.reference = rows.empty();
    row.vs_reference = rows.empty() ? 1.0 : rows.front().time.median_ms / row.time.median_ms;
    row.pct_of_peak = rate.peak > 0 ? 100.0 * row.throughput / rate.peak : 0.0;
    row.copy_gbs = copy_gbs;
    row.vs_copy = row.throughput / copy_gbs;
    row.predicted_wavefronts = c.predicted_wavefronts;
    row.library = c.library;
    row.verified = check.verified;
    row.error = check.error;
    row.max_error = check.max_error;
    row.checked_against = check.checked_against;
    rows.push_back(std::move(row));
  }
  return rows;
}

Shape BenchFamily::canonical(const Shape& shape) const {
  const std::size_t rank = shape.dims.size();
  Shape out = shape;
  switch (spec_.form) {
    case SizeForm::count:
      if (rank != 1) throw UsageError(fmt::format("{} sizes are one number n, not '{}'", name(), shape.label()));
      break;
    case SizeForm::matrix:
      if (rank == 3) throw UsageError(fmt::format("{} sizes are N or RxC, not '{}'", name(), shape.label()));
      if (rank == 1) out = Shape{{shape.dims[0], shape.dims[0]}};
      break;
    case SizeForm::gemm:
      if (rank == 2) throw UsageError(fmt::format("{} sizes are N or MxNxK, not '{}'", name(), shape.label()));
      if (rank == 1) out = Shape{{shape.dims[0], shape.dims[0], shape.dims[0]}};
      break;
  }
  for (const auto d : out.dims)
    if (d > spec_.max_dim)
      throw UsageError(fmt::format("{} size '{}': each dimension must be at most {}", name(), shape.label(),
                                   spec_.max_dim));
  // Byte counts (elements of up to 16 bytes, read and written a few times) must stay exact in
  // 64-bit integers: the largest operand may hold at most 2^56 elements.
  constexpr int kMaxElementsLog2 = 56;
  std::int64_t largest = 0;
  switch (spec_.form) {
    case SizeForm::count: largest = count(out); break;
    case SizeForm::matrix: {
      const MatrixShape size = matrix_shape(out);
      largest = std::int64_t{size.rows} * size.cols;
      break;
    }
    case SizeForm::gemm: {
      const GemmShape g = gemm_shape(out);
      largest = std::max({std::int64_t{g.m} * g.k, std::int64_t{g.k} * g.n, std::int64_t{g.m} * g.n});
      break;
    }
  }
  if (largest > (std::int64_t{1} << kMaxElementsLog2))
    throw UsageError(fmt::format("{} size '{}': an operand of {} elements is more than 2^{}", name(), shape.label(),
                                 largest, kMaxElementsLog2));
  return out;
}

namespace {

// The registry's views point into static storage, so the copy's name outlives the request.
std::optional<VariantInfo> find_in_family(const BenchFamily& family, std::string_view name) {
  for (const VariantInfo& v : family.variants())
    if (v.name == name) return v;
  return std::nullopt;
}

}  // namespace

namespace {

constexpr int kMaxRandomShapes = 1000;
constexpr double kMaxGemmSide = 16384.0;
constexpr double kMaxGemmProduct = 0x1.0p37;

// --size random:N[:SEED] as sizes MxNxK; any other size as given.
std::vector<std::string> expand_random_sizes(const std::vector<std::string>& sizes, BenchOptions& options) {
  std::vector<std::string> out;
  for (const auto& text : sizes) {
    if (!text.starts_with("random:")) {
      out.push_back(text);
      continue;
    }
    const std::string_view spec = std::string_view(text).substr(7);
    const std::size_t colon = spec.find(':');
    const auto number = [&](std::string_view digits, auto& value) {
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      return ec == std::errc() && end == digits.data() + digits.size();
    };
    int count = 0;
    std::uint64_t seed = std::random_device{}();
    if (!number(spec.substr(0, colon), count) || count < 1 || count > kMaxRandomShapes ||
        (colon != std::string_view::npos && !number(spec.substr(colon + 1), seed)))
      throw UsageError(fmt::format("--size '{}': random shapes are random:N or random:N:SEED, N from 1 to {} and "
                                   "SEED a number from 0 to 2^64 - 1",
                                   text, kMaxRandomShapes));
    options.random_seed = seed;
    for (auto& shape : random_gemm_sizes(count, seed)) out.push_back(std::move(shape));
  }
  return out;
}

}  // namespace

std::vector<std::string> random_gemm_sizes(int count, std::uint64_t seed) {
  // The engine's output is specified by the standard; the mapping to sizes is written here
  // (the library's distributions may differ between implementations).
  std::mt19937_64 engine(seed);
  const auto side = [&] {
    const double u = static_cast<double>(engine() >> 11) * 0x1.0p-53;  // [0, 1)
    return static_cast<long long>(std::exp2(u * std::log2(kMaxGemmSide + 1.0)));  // 1 .. 16384
  };
  std::vector<std::string> out;
  while (std::ssize(out) < count) {
    const long long m = side();
    const long long n = side();
    const long long k = side();
    if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) <= kMaxGemmProduct)
      out.push_back(fmt::format("{}x{}x{}", m, n, k));
  }
  return out;
}

std::string with_operand_layout(std::string size, const BenchOptions& options) {
  if (!options.transpose_a && !options.transpose_b) return size;
  return size + " " + (options.transpose_a ? "T" : "N") + (options.transpose_b ? "T" : "N");
}

BenchPlan plan_bench(const BenchRequest& request) {
  BenchPlan plan;
  plan.options = request.options;
  if (request.transpose == "a" || request.transpose == "ab") plan.options.transpose_a = true;
  if (request.transpose == "b" || request.transpose == "ab") plan.options.transpose_b = true;
  if (!request.transpose.empty() && !plan.options.transpose_a && !plan.options.transpose_b)
    throw UsageError(fmt::format("--transpose takes a, b or ab (got '{}')", request.transpose));
  const std::vector<std::string> requested_sizes = expand_random_sizes(request.sizes, plan.options);
  if (request.options.reps < 1)
    throw UsageError(fmt::format("--reps must be at least 1 (got {})", request.options.reps));
  if (request.full && !request.sizes.empty())
    throw UsageError("--full runs each family's whole sweep of sizes: give --full or --size, not both");
  if (request.options.warmup < 0)
    throw UsageError(fmt::format("--warmup must not be negative (got {})", request.options.warmup));

  std::vector<const BenchFamily*> chosen;
  for (const auto& name : request.families) {
    const BenchFamily* f = &find_family(name);
    if (std::find(chosen.begin(), chosen.end(), f) == chosen.end()) chosen.push_back(f);
  }

  // Resolve every --variant to (family, name); "name" alone may match in any chosen family.
  std::map<const BenchFamily*, std::vector<std::string_view>> wanted;
  for (const auto& spec : request.variants) {
    const auto slash = spec.find('/');
    std::vector<const BenchFamily*> candidates;
    std::string_view name = spec;
    if (slash != std::string::npos) {
      candidates.push_back(&find_family(std::string_view(spec).substr(0, slash)));
      name = std::string_view(spec).substr(slash + 1);
    } else {
      for (const BenchFamily* f : families()) candidates.push_back(f);
    }
    const BenchFamily* owner = nullptr;
    std::string_view canonical_name;
    for (const BenchFamily* f : candidates) {
      if (!chosen.empty() && std::find(chosen.begin(), chosen.end(), f) == chosen.end()) continue;
      if (const auto v = find_in_family(*f, name)) {
        owner = f;
        canonical_name = v->name;
        break;
      }
    }
    if (owner == nullptr)
      throw UsageError(fmt::format("unknown variant '{}'{} (see 'smemlab list')", spec,
                                   chosen.empty() ? "" : " in the selected families"));
    auto& names = wanted[owner];
    if (std::find(names.begin(), names.end(), canonical_name) == names.end())
      names.push_back(canonical_name);
  }
  if (chosen.empty()) {
    if (wanted.empty()) {
      for (const BenchFamily* f : families())
        if (f->spec().in_default_run) chosen.push_back(f);
    } else {
      for (const BenchFamily* f : families())
        if (wanted.contains(f)) chosen.push_back(f);
    }
  }

  std::vector<DType> requested_types;
  for (const auto& t : request.dtypes) {
    const auto type = parse_dtype(t);
    if (!type) throw UsageError(fmt::format("unknown type '{}' ({})", t, kDTypeNames));
    requested_types.push_back(*type);
  }
  const bool families_named = !request.families.empty() || !request.variants.empty();

  for (const BenchFamily* family : chosen) {
    BenchPlan::Item item{family, {}, {}, {}};
    const auto types = family->spec().dtypes;
    if (requested_types.empty()) item.dtypes.push_back(types.front());
    for (const DType t : requested_types) {
      const bool runs = std::find(types.begin(), types.end(), t) != types.end();
      if (runs && std::find(item.dtypes.begin(), item.dtypes.end(), t) == item.dtypes.end())
        item.dtypes.push_back(t);
    }
    if (item.dtypes.empty()) {
      if (!families_named) continue;  // e.g. --type double skips the float-only families
      throw UsageError(fmt::format("{} does not run type {}", family->name(),
                                   fmt::join(request.dtypes, ",")));
    }
    const auto requested = wanted.find(family);
    for (const VariantInfo& v : family->variants()) {
      if (v.reference) continue;  // always run: every ratio needs it
      const bool all = requested == wanted.end();
      if (all || std::find(requested->second.begin(), requested->second.end(), v.name) !=
                     requested->second.end())
        item.variants.push_back(v.name);
    }
    const std::vector<std::string>& sizes = !requested_sizes.empty() ? requested_sizes
                                            : request.full         ? family->spec().full_sizes
                                                                   : family->spec().sizes;
    for (const auto& text : sizes) {
      const Shape shape = parse_shape(text);  // malformed sizes are errors for every family
      try {
        item.sizes.push_back(family->canonical(shape));
      } catch (const UsageError&) {
        // Without --family or --variant a size applies to the families that take its form.
        if (families_named || request.sizes.empty()) throw;
      }
    }
    if (item.sizes.empty()) continue;
    plan.items.push_back(std::move(item));
  }
  if (plan.items.empty() && !request.sizes.empty())
    throw UsageError(fmt::format("no family takes the size(s) {}", fmt::join(request.sizes, ",")));
  if (plan.items.empty())
    throw UsageError(fmt::format("no family runs type {}", fmt::join(request.dtypes, ",")));
  // Only the GEMM calls take operands stored transposed; the sweeps' kernel choices are launched
  // directly, on row-major operands.
  for (const auto& item : plan.items)
    if ((plan.options.transpose_a || plan.options.transpose_b) && item.family->name() != "matmul" &&
        item.family->name() != "tensor-matmul")
      throw UsageError(fmt::format("--transpose applies to the matmul and tensor-matmul families, not {}",
                                   item.family->name()));
  return plan;
}

void require_device_memory(std::size_t need, const DeviceInfo& device, std::string_view what) {
  // The L2 flush buffer and a margin for the context, cuBLAS workspaces and the allocator.
  const std::size_t overhead = 2 * device.l2_bytes + (std::size_t{256} << 20);
  if (need > device.global_mem_bytes || device.global_mem_bytes - need < overhead)
    throw UsageError(fmt::format("{} needs {:.2f} GiB of device memory; {} has {:.2f} GiB", what,
                                 static_cast<double>(need) / (1 << 30), device.name,
                                 static_cast<double>(device.global_mem_bytes) / (1 << 30)));
}

namespace {

// The GEMM calls copy operands stored transposed to row-major scratch first: the workspace the
// benchmark gives them holds those copies beside the family's own needs.
std::size_t transposed_copy_bytes(const Shape& shape, DType type, const BenchOptions& options) {
  if (!options.transpose_a && !options.transpose_b) return 0;
  const GemmShape g = gemm_shape(shape);
  GemmOperands operands{g.m, g.n, g.k, nullptr, 0, nullptr, 0, nullptr, 0};
  operands.transpose_a = options.transpose_a;
  operands.transpose_b = options.transpose_b;
  return detail::row_major_copy_bytes(operands, dtype_bytes(type));
}

}  // namespace

void check_fits(const BenchPlan& plan, const DeviceInfo& device) {
  for (const auto& item : plan.items)
    for (const auto& shape : item.sizes)
      for (const DType type : item.dtypes)
        require_device_memory(item.family->device_bytes(shape, type) +
                                  transposed_copy_bytes(shape, type, plan.options),
                              device,
                              fmt::format("size {} of {} ({}{})", shape.label(), item.family->name(),
                                          dtype_name(type), plan.options.transpose_a || plan.options.transpose_b
                                                                ? ", with the copies of transposed operands"
                                                                : ""));
}

std::size_t planned_rows(const BenchPlan& plan) {
  std::size_t rows = 0;
  for (const auto& item : plan.items) rows += item.sizes.size() * item.dtypes.size() * (item.variants.size() + 1);
  return rows;
}

BenchReport run_bench(const BenchPlan& plan, int device_ordinal, const ProgressFn& progress) {
  BenchReport report;
  report.device = query_device(device_ordinal);
  report.options = plan.options;
  SMEMLAB_CUDA_CHECK(cudaSetDevice(device_ordinal));
  Stream stream;
  L2Flusher flusher(report.device.l2_bytes);
  const BenchContext ctx{report.device, plan.options, stream.get(), flusher, progress};
  for (const auto& item : plan.items) {
    for (const VariantInfo& v : item.family->variants())
      if (v.reference || std::find(item.variants.begin(), item.variants.end(), v.name) != item.variants.end())
        report.variants.push_back(v);
    for (const auto dtype : item.dtypes) {
      for (const auto& shape : item.sizes) {
        auto rows = item.family->run(shape, dtype, item.variants, ctx);
        report.rows.insert(report.rows.end(), rows.begin(), rows.end());
      }
    }
  }
  return report;
}

}  // namespace smemlab
