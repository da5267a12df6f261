// The transpose family in the benchmark: random inputs, cuBLAS geam as the reference, a
// device-to-device cudaMemcpy of the same bytes as the ceiling, and an exact check of every
// output (a transpose moves bits: any difference is an error).
#include <fmt/format.h>

#include <climits>
#include <cstring>

#include "bench/families.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/device_memory.hpp"
#include "smemlab/error.hpp"
#include "smemlab/transpose.hpp"

namespace smemlab {
namespace {

// Elements of out that differ, bit for bit, from the transpose (or, for the copy variant, the
// copy) of in; both dense.
template <class T>
std::size_t mismatches(const std::vector<T>& in, const std::vector<T>& out, int rows, int cols,
                       bool copies) {
  std::size_t bad = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const T& want = in[static_cast<std::size_t>(r) * cols + c];
      const T& got = copies ? out[static_cast<std::size_t>(r) * cols + c]
                            : out[static_cast<std::size_t>(c) * rows + r];
      bad += std::memcmp(&want, &got, sizeof(T)) != 0;
    }
  }
  return bad;
}

template <class T>
std::vector<BenchRow> run_typed(int rows, int cols, std::string_view dtype,
                                std::span<const std::string_view> variant_names,
                                const BenchContext& ctx) {
  const std::string label = rows == cols ? std::to_string(rows) : fmt::format("{}x{}", rows, cols);
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const double bytes = 2.0 * static_cast<double>(count) * sizeof(T);  // read + written
  ctx.progress(fmt::format("transpose {} {}: inputs and copy ceiling", dtype, label));

  DeviceBuffer<T> in(count);
  DeviceBuffer<T> out(count);
  fill_uniform(in.data(), count, 4, T(-1), T(1), ctx.stream);
  std::vector<T> host_in(count);
  in.download(host_in, ctx.stream);
  const TimingStats copy_time = time_launches(
      [&] {
        SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), count * sizeof(T),
                                           cudaMemcpyDeviceToDevice, ctx.stream));
      },
      ctx);
  const double copy_gbs = bytes / (copy_time.median_ms * 1e-3) * 1e-9;

  const CublasHandle cublas;
  const LaunchContext launch_ctx{ctx.stream, cublas.get()};
  const transpose::Args<T> args{rows, cols, in.data(), cols, out.data(), rows};
  std::vector<const transpose::TransposeVariant*> chosen{&transpose::find("cublas")};
  for (const auto name : variant_names) chosen.push_back(&transpose::find(name));

  std::vector<T> host_out(count);
  std::vector<BenchRow> result;
  for (const auto* v : chosen) {
    ctx.progress(fmt::format("transpose {} {}: {}", dtype, label, v->info.name));
    out.poison(ctx.stream);
    transpose::run(*v, args, launch_ctx);
    SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    out.download(host_out, ctx.stream);
    const std::size_t bad = mismatches(host_in, host_out, rows, cols, v->launch.copies);

    BenchRow row = timed_row("transpose", v->info.name, dtype, label,
                             time_launches([&] { transpose::run(*v, args, launch_ctx); }, ctx), bytes,
                             "GB/s", ctx.device.dram_peak_gbs, result);
    row.copy_gbs = copy_gbs;
    row.vs_copy = row.throughput / copy_gbs;
    row.verified = bad == 0;
    row.error = static_cast<double>(bad) / static_cast<double>(count);  // share of wrong elements
    row.max_error = row.error;
    row.checked_against = v->launch.copies ? "exact copy" : "exact transpose";
    result.push_back(std::move(row));
  }
  return result;
}

}  // namespace

std::vector<VariantInfo> TransposeFamily::variants() const {
  std::vector<VariantInfo> out;
  for (const auto& v : transpose::variants()) out.push_back(v.info);
  return out;
}

std::vector<std::string> TransposeFamily::default_sizes() const {
  return {"1024", "4096", "8192", "16384", "8192x4096", "4097x1025"};
}

Shape TransposeFamily::canonical(const Shape& shape) const {
  if (shape.dims.size() == 3)
    throw UsageError(fmt::format("transpose sizes are N or RxC, not '{}'", shape.label()));
  Shape out = shape.dims.size() == 1 ? Shape{{shape.dims[0], shape.dims[0]}} : shape;
  for (const auto d : out.dims)
    if (d > INT_MAX)
      throw UsageError(fmt::format("transpose size '{}': each dimension must be at most {}",
                                   shape.label(), INT_MAX));
  return out;
}

std::size_t TransposeFamily::device_bytes(const Shape& shape, std::string_view dtype) const {
  const std::size_t elem = dtype == "double" ? 8 : 4;
  return static_cast<std::size_t>(shape.dims[0]) * static_cast<std::size_t>(shape.dims[1]) * elem * 2;
}

std::vector<BenchRow> TransposeFamily::run(const Shape& shape, std::string_view dtype,
                                           std::span<const std::string_view> variant_names,
                                           const BenchContext& ctx) const {
  const int rows = static_cast<int>(shape.dims[0]);
  const int cols = static_cast<int>(shape.dims[1]);
  if (dtype == "double") return run_typed<double>(rows, cols, dtype, variant_names, ctx);
  return run_typed<float>(rows, cols, dtype, variant_names, ctx);
}

}  // namespace smemlab
