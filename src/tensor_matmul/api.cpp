#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "core/gemm_operands.hpp"
#include "smemlab/error.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul {

void validate(const GemmArgs& g) {
  const auto fail = [](std::string message) { throw std::invalid_argument("gemm: " + message); };
  if (g.input != DType::bf16 && g.input != DType::f16 && g.input != DType::tf32)
    fail(fmt::format("input type {} is not a tensor-core input (bf16, half, tf32)", dtype_name(g.input)));
  validate_gemm_operands(operands_of(g));
  if (g.workspace != nullptr && g.workspace_size < workspace_bytes(g))
    fail(fmt::format("workspace of {} bytes is smaller than the {} needed", g.workspace_size, workspace_bytes(g)));
}

std::span<const TensorVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const std::array table{SMEMLAB_TENSOR_MATMUL_STEPS(SMEMLAB_MAKE_STEP)};
#undef SMEMLAB_MAKE_STEP
  return table;
}

const TensorVariant& find(std::string_view name) { return find_variant(variants(), name); }

bool device_supported() {
  int device = 0;
  int major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    cudaGetLastError();  // clear the error of a missing device or driver
    return false;
  }
  return major >= 8;
}

void gemm(const TensorVariant& variant, const GemmArgs& call, const LaunchContext& ctx) {
  validate(call);
  const GemmArgs args = smemlab::detail::with_row_vector_a(call, dtype_bytes(call.input));
  if (!variant.info.runs(args.input))
    throw std::invalid_argument("gemm: " + std::string(variant.info.name) + " does not take " +
                                std::string(dtype_name(args.input)) + " inputs");
  in_routine("tensor_matmul::gemm(" + std::string(variant.info.name) + ")", [&] {
    if (variant.info.reads_transposed) {
      variant.launch(args, ctx);
    } else {
      smemlab::detail::with_row_major_operands(args, dtype_bytes(args.input), ctx.stream,
                                               [&](const GemmArgs& plain) { variant.launch(plain, ctx); });
    }
  });
}

void gemm(const GemmArgs& args, const LaunchContext& ctx) { gemm(find("auto"), args, ctx); }

bool operands_16b_aligned(const GemmArgs& g) {
  return detail::rows_16b_aligned(g.a, g.lda, g.input) && detail::rows_16b_aligned(g.b, g.ldb, g.input);
}

double relative_tolerance(DType input, int k) {
  // The FP64 reference multiplies the very inputs the kernel was given, so what is judged is
  // the kernel's own arithmetic. bf16 and half: a product of two is exact in float, and the
  // error is the float summation's, as for SGEMM (about 0.7 u sqrt(K) with u = 2^-24, see
  // matmul::relative_tolerance); the tensor cores add in float but may drop the bits of the
  // smaller addend past float's precision instead of rounding them, up to twice the error of
  // rounding. We accept 16 u sqrt(K) + 16 u. tf32: each input keeps 10 of float's 23 fraction
  // bits, cut toward zero: a relative error below 2^-10 per input, so below 2^-9 per product,
  // with random sign in a sum of random-signed products: the norm-wise error is about
  // 2^-9 / sqrt(3) ≈ 1.1e-3 whatever K. We accept 4 times 2^-9 plus the summation's term.
  constexpr double kFloatRoundoff = 0x1.0p-24;
  const double summation = kFloatRoundoff * (16.0 * std::sqrt(static_cast<double>(k)) + 16.0);
  if (input == DType::tf32) return 4.0 * 0x1.0p-9 + summation;
  return summation;
}

}  // namespace smemlab::tensor_matmul
