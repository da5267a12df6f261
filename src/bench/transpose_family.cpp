// The transpose family in the benchmark: random inputs, cuBLAS geam as the reference, a
// device-to-device cudaMemcpy of the same bytes as the ceiling, and an exact check of every
// output (a transpose moves bits: any difference is an error).
#include <fmt/format.h>

#include <cstring>

#include "bench/device_memory.hpp"
#include "bench/families.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
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
std::vector<BenchRow> run_typed(const Shape& shape, std::span<const std::string_view> variant_names,
                                const BenchContext& ctx) {
  const auto [rows, cols] = matrix_shape(shape);
  const std::string label = rows == cols ? std::to_string(rows) : fmt::format("{}x{}", rows, cols);
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  ctx.progress(fmt::format("transpose {} {}: inputs", dtype_name(dtype_of<T>), label), false);

  DeviceBuffer<T> in(count);
  DeviceBuffer<T> out(count);
  fill_uniform(in.data(), count, 4, T(-1), T(1), ctx.stream);
  std::vector<T> host_in(count);
  in.download(host_in, ctx.stream);

  const CublasHandle cublas;
  const LaunchContext launch_ctx{ctx.stream, cublas.get()};
  const transpose::Args<T> args{rows, cols, in.data(), cols, out.data(), rows};
  std::vector<const transpose::TransposeVariant*> chosen{&transpose::find("cublas")};
  for (const auto name : variant_names) chosen.push_back(&transpose::find(name));

  std::vector<T> host_out(count);
  std::vector<Candidate> candidates;
  for (const auto* v : chosen) {
    candidates.push_back({.name = std::string(v->info.name),
                          .check = [&, v] {
                            out.poison(ctx.stream);
                            transpose::run(*v, args, launch_ctx);
                            SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
                            out.download(host_out, ctx.stream);
                            const std::size_t bad = mismatches(host_in, host_out, rows, cols, v->launch.copies);
                            const double share = static_cast<double>(bad) / static_cast<double>(count);
                            return Check{bad == 0, share, share,  // the share of wrong elements
                                         v->launch.copies ? "exact copy" : "exact transpose"};
                          },
                          .launch = [&, v] { transpose::run(*v, args, launch_ctx); }});
  }
  const Workload work{.size = label,
                      .rate = Rate::bytes(2.0 * static_cast<double>(count) * sizeof(T), ctx.device),  // read + written
                      .copy_source = in.data(),
                      .copy_bytes = count * sizeof(T)};
  return measure("transpose", dtype_of<T>, work, candidates, ctx);
}

}  // namespace

const BenchFamily& transpose_family() {
  static const BenchFamily family(
      {.name = "transpose",
       .form = SizeForm::matrix,
       .sizes = {"4096", "8192", "4097x1025"},
       .full_sizes = {"1024", "4096", "8192", "16384", "8192x4096", "4097x1025"},
       .explain_size = "8192",
       .dtypes = kFloatAndDouble,
       .variants = [] { return infos_of(transpose::variants()); },
       // The input, the output and the copy ceiling's destination.
       .device_bytes = [](const Shape& shape, DType type) {
         const MatrixShape size = matrix_shape(shape);
         return static_cast<std::size_t>(size.rows) * static_cast<std::size_t>(size.cols) * dtype_bytes(type) * 3;
       },
       .run = [](const BenchFamily& /*self*/, const Shape& shape, DType type,
                 std::span<const std::string_view> names, const BenchContext& ctx) {
         return with_element_type(type, [&](auto zero) { return run_typed<decltype(zero)>(shape, names, ctx); });
       }});
  return family;
}

}  // namespace smemlab
