// The reduction family in the benchmark: random inputs of both signs, CUB as the reference, the
// device-to-device copy of the same bytes as the ceiling, every result checked against the
// compensated CPU sum before it is timed. `smemlab sum` runs every variant the same way on
// copies of one value.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "bench/device_memory.hpp"
#include "bench/families.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"
#include "smemlab/reduce.hpp"

namespace smemlab {
namespace {

// An array on the device and on the host, and what the chosen variants need to sum it.
template <class T>
class SumRun {
 public:
  SumRun(const T* in, std::vector<T> host, std::span<const reduce::ReduceVariant* const> variants,
         cudaStream_t stream)
      : in_(in), host_(std::move(host)), stream_(stream) {
    std::size_t bytes = 0;
    for (const auto* v : variants) bytes = std::max(bytes, reduce::workspace_bytes<T>(*v, host_.size()));
    workspace_ = DeviceBuffer<unsigned char>(bytes);
  }

  // One run, on the stream (device variants) or here (host variants).
  T launch(const reduce::ReduceVariant& v) {
    const auto& o = reduce::ops<T>(v);
    if (o.host != nullptr) return o.host(host_.data(), host_.size());
    reduce::sum<T>(v, {in_, host_.size(), out_.data(), workspace_.data()}, {stream_});
    return T{};
  }

  // One run read back: the workspace filled with garbage first (it is scratch), the output
  // poisoned.
  T result(const reduce::ReduceVariant& v) {
    if (reduce::ops<T>(v).host != nullptr) return launch(v);
    SMEMLAB_CUDA_CHECK(cudaMemsetAsync(workspace_.data(), 0xFF, workspace_.bytes(), stream_));
    out_.poison(stream_);
    launch(v);
    std::vector<T> got(1);
    out_.download(got, stream_);
    return got[0];
  }

  [[nodiscard]] const std::vector<T>& host() const { return host_; }

 private:
  const T* in_;
  std::vector<T> host_;
  cudaStream_t stream_;
  DeviceBuffer<unsigned char> workspace_;
  DeviceBuffer<T> out_{1};
};

template <class T>
std::vector<BenchRow> run_typed(const Shape& shape, std::span<const std::string_view> variant_names,
                                const BenchContext& ctx) {
  const auto n = static_cast<std::size_t>(count(shape));
  const std::string label = count_label(count(shape));
  ctx.progress(fmt::format("reduction {} {}: inputs and reference", dtype_name(dtype_of<T>), label), false);

  DeviceBuffer<T> in(n);
  fill_uniform(in.data(), n, 3, T(-1), T(1), ctx.stream);
  std::vector<T> host(n);
  in.download(host, ctx.stream);
  const reduce::ReferenceSum ref = reduce::reference_sum(host.data(), n);
  const double tol = reduce::tolerance<T>(n);

  std::vector<const reduce::ReduceVariant*> chosen{&reduce::find("cub")};
  for (const auto name : variant_names) {
    const auto& v = reduce::find(name);
    if (v.info.runs(dtype_of<T>)) chosen.push_back(&v);  // e.g. cpu_float has no double version
  }
  SumRun<T> sums(in.data(), std::move(host), chosen, ctx.stream);

  std::vector<Candidate> candidates;
  for (const auto* v : chosen) {
    candidates.push_back({.name = std::string(v->info.name),
                          .check = [&sums, &ref, tol, v] {
                            const T got = sums.result(*v);
                            const double error = std::abs(static_cast<double>(got) - ref.sum) / ref.abs_sum;
                            return Check{std::isfinite(static_cast<double>(got)) && error <= tol, error, error,
                                         "cpu-fp64-compensated"};
                          },
                          .launch = [&sums, v] { (void)sums.launch(*v); },
                          .on_host = reduce::ops<T>(*v).host != nullptr});
  }
  const double bytes = static_cast<double>(n) * sizeof(T);
  const Workload work{.size = label,
                      .rate = Rate::bytes(bytes, ctx.device),
                      .copy_source = in.data(),
                      .copy_bytes = n * sizeof(T)};
  return measure("reduction", dtype_of<T>, work, candidates, ctx);
}

// Every variant on n copies of one value, beside the exact sum of the stored values.
template <class T>
std::string sum_copies(double value, std::size_t n, const DeviceInfo& device) {
  const T stored = static_cast<T>(value);
  const double exact = static_cast<double>(stored) * static_cast<double>(n);  // exact to ~1e-16
  require_device_memory(n * sizeof(T) * 2, device, fmt::format("--count {}", n));
  SMEMLAB_CUDA_CHECK(cudaSetDevice(device.ordinal));
  DeviceBuffer<T> in(n);
  fill_value(in.data(), n, stored, nullptr);
  std::vector<const reduce::ReduceVariant*> all;
  for (const auto& v : reduce::variants())
    if (v.info.runs(dtype_of<T>)) all.push_back(&v);
  SumRun<T> sums(in.data(), std::vector<T>(n, stored), all, nullptr);

  std::string out = fmt::format("{} x {} ({} stores {:.17g}); exact sum of the stored values: {:.17g}\n", n,
                                value, dtype_name(dtype_of<T>), static_cast<double>(stored), exact);
  out += fmt::format("{:<24}{:>26}{:>16}\n", "variant", "sum", "relative error");
  for (const auto* v : all) {
    const T got = sums.result(*v);
    const double error = exact == 0.0 ? std::abs(static_cast<double>(got))
                                      : std::abs((static_cast<double>(got) - exact) / exact);
    out += fmt::format("{:<24}{:>26.17g}{:>16.2e}\n", v->info.name, static_cast<double>(got), error);
  }
  return out;
}

}  // namespace

std::string count_label(std::int64_t n) {
  const auto u = static_cast<std::uint64_t>(n);
  if (n > 1 && std::has_single_bit(u)) return fmt::format("2^{}", std::countr_zero(u));
  return std::to_string(n);
}

std::string sum_of_copies(double value, std::int64_t count, DType type, const DeviceInfo& device) {
  return with_element_type(type, [&](auto zero) {
    return sum_copies<decltype(zero)>(value, static_cast<std::size_t>(count), device);
  });
}

const BenchFamily& reduction_family() {
  static const BenchFamily family(
      {.name = "reduction",
       .form = SizeForm::count,
       .max_dim = INT64_MAX,
       .sizes = {"2^24", "2^26", "100000007"},
       .full_sizes = {"2^20", "2^24", "2^26", "2^28", "100000007"},
       .explain_size = "2^24",
       .dtypes = kFloatAndDouble,
       .variants = [] { return infos_of(reduce::variants()); },
       // The input, the copy that measures the ceiling (or global_memory's padded copy), partials.
       .device_bytes = [](const Shape& shape, DType type) {
         return static_cast<std::size_t>(count(shape)) * dtype_bytes(type) * 2 + (std::size_t{64} << 20);
       },
       .run = [](const BenchFamily& /*self*/, const Shape& shape, DType type,
                 std::span<const std::string_view> names, const BenchContext& ctx) {
         return with_element_type(type, [&](auto zero) { return run_typed<decltype(zero)>(shape, names, ctx); });
       }});
  return family;
}

}  // namespace smemlab
