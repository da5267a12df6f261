// 00 — cuBLAS SGEMM, the reference every other variant is measured against. FP32 arithmetic on
// CUDA cores: the handle (smemlab::CublasHandle) is set to CUBLAS_DEFAULT_MATH, never TF32.
// cuBLAS is column-major; a row-major C = A * B is the column-major C^T = B^T * A^T, so the
// operands go in swapped and untransposed.
#include <stdexcept>

#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {
namespace {

void launch_cublas(const GemmArgs& g, const LaunchContext& ctx) {
  if (ctx.cublas == nullptr) throw std::invalid_argument("gemm: the cublas variant needs a handle");
  SMEMLAB_CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));
  // Column-major C^T = op(B)^T op(A)^T: an operand stored transposed goes in with CUBLAS_OP_T.
  SMEMLAB_CUBLAS_CHECK(cublasSgemm(ctx.cublas, g.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                   g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, g.n, g.m, g.k, &g.alpha, g.b, g.ldb, g.a,
                                   g.lda, &g.beta, g.c, g.ldc));
}

}  // namespace

GemmVariant cublas_variant() {
  return {{.family = "matmul",
           .name = "cublas",
           .description = "cuBLAS SGEMM, FP32 arithmetic (no TF32): the reference",
           .technique = "vendor library: what a user would call instead of writing a kernel",
           .smem = SmemKind::dynamic_alloc,
           .reference = true,
           .why_no_model = "a vendor library: its kernels are not modelled",
           .reads_transposed = true},
          launch_cublas};
}

}  // namespace smemlab::matmul::detail
