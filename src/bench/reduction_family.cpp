// The reduction family in the benchmark: random inputs of both signs, CUB as the reference, the
// device-to-device copy of the same bytes as the ceiling, every result checked against the
// compensated CPU sum before it is timed.
#include <fmt/format.h>

#include <bit>
#include <cmath>

#include "bench/families.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/device_memory.hpp"
#include "smemlab/error.hpp"
#include "smemlab/reduce.hpp"

namespace smemlab {
namespace {

// Host variants read the whole array on one core: a few runs are enough to time them.
constexpr int kHostReps = 3;

template <class T>
std::vector<BenchRow> run_typed(std::int64_t count, std::string_view dtype,
                                std::span<const std::string_view> variant_names,
                                const BenchContext& ctx) {
  const auto n = static_cast<std::size_t>(count);
  const std::string label = count_label(count);
  const double bytes = static_cast<double>(n) * sizeof(T);
  ctx.progress(fmt::format("reduction {} {}: inputs, reference and copy ceiling", dtype, label));

  DeviceBuffer<T> in(n);
  fill_uniform(in.data(), n, 3, T(-1), T(1), ctx.stream);
  std::vector<T> host(n);
  in.download(host, ctx.stream);
  const reduce::ReferenceSum ref = reduce::reference_sum(host.data(), n);
  const double tol = reduce::tolerance<T>(n);

  double copy_gbs = 0.0;
  {
    DeviceBuffer<T> copy(n);
    const TimingStats t = time_launches(
        [&] {
          SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(copy.data(), in.data(), n * sizeof(T),
                                             cudaMemcpyDeviceToDevice, ctx.stream));
        },
        ctx);
    copy_gbs = 2.0 * bytes / (t.median_ms * 1e-3) * 1e-9;  // read + written
  }

  std::vector<const reduce::ReduceVariant*> chosen{&reduce::find("cub")};
  for (const auto name : variant_names) chosen.push_back(&reduce::find(name));
  std::size_t workspace_bytes = 0;
  for (const auto* v : chosen) {
    const auto& o = reduce::ops<T>(*v);
    if (o.device != nullptr) workspace_bytes = std::max(workspace_bytes, o.workspace_bytes(n));
  }
  DeviceBuffer<unsigned char> workspace(workspace_bytes);
  DeviceBuffer<T> out(1);

  std::vector<BenchRow> rows;
  for (const auto* v : chosen) {
    const auto& o = reduce::ops<T>(*v);
    if (!o.exists()) continue;  // e.g. cpu_float has no double version
    ctx.progress(fmt::format("reduction {} {}: {}", dtype, label, v->info.name));
    T result{};
    TimingStats time;
    if (o.host != nullptr) {
      result = o.host(host.data(), n);
      time = time_host([&] { result = o.host(host.data(), n); }, kHostReps);
    } else {
      // The workspace starts zeroed, as the single-pass variant's counter requires.
      SMEMLAB_CUDA_CHECK(cudaMemsetAsync(workspace.data(), 0, workspace.bytes(), ctx.stream));
      out.poison(ctx.stream);
      reduce::sum(*v, in.data(), n, out.data(), workspace.data(), ctx.stream);
      SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
      std::vector<T> got(1);
      out.download(got, ctx.stream);
      result = got[0];
      time = time_launches(
          [&] { reduce::sum(*v, in.data(), n, out.data(), workspace.data(), ctx.stream); }, ctx);
    }
    const double error = std::abs(static_cast<double>(result) - ref.sum) / ref.abs_sum;
    BenchRow row = timed_row("reduction", v->info.name, dtype, label, time, bytes, "GB/s",
                             ctx.device.dram_peak_gbs, rows);
    row.checked_against = "cpu-fp64-compensated";
    row.copy_gbs = copy_gbs;
    row.vs_copy = row.throughput / copy_gbs;
    row.verified = std::isfinite(static_cast<double>(result)) && error <= tol;
    row.error = error;
    row.max_error = error;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

std::string count_label(std::int64_t n) {
  const auto u = static_cast<std::uint64_t>(n);
  if (n > 1 && std::has_single_bit(u)) return fmt::format("2^{}", std::countr_zero(u));
  return std::to_string(n);
}

std::vector<VariantInfo> ReductionFamily::variants() const {
  std::vector<VariantInfo> out;
  for (const auto& v : reduce::variants()) out.push_back(v.info);
  return out;
}

std::vector<std::string> ReductionFamily::default_sizes() const {
  return {"2^20", "2^24", "2^26", "2^28", "100000007"};
}

Shape ReductionFamily::canonical(const Shape& shape) const {
  if (shape.dims.size() != 1)
    throw UsageError(fmt::format("reduction sizes are one number n, not '{}'", shape.label()));
  return shape;
}

std::size_t ReductionFamily::device_bytes(const Shape& shape, std::string_view dtype) const {
  // The input, the copy that measures the ceiling (or global_memory's padded copy), partials.
  const std::size_t elem = dtype == "double" ? 8 : 4;
  return static_cast<std::size_t>(shape.dims[0]) * elem * 2 + (std::size_t{64} << 20);
}

std::vector<BenchRow> ReductionFamily::run(const Shape& shape, std::string_view dtype,
                                           std::span<const std::string_view> variant_names,
                                           const BenchContext& ctx) const {
  if (dtype == "double") return run_typed<double>(shape.dims[0], dtype, variant_names, ctx);
  return run_typed<float>(shape.dims[0], dtype, variant_names, ctx);
}

}  // namespace smemlab
