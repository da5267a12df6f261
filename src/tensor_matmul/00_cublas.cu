// 00 — cuBLAS GemmEx, the reference: the same input types and FP32 accumulation (bf16 and
// half: CUBLAS_COMPUTE_32F; tf32: float data with CUBLAS_COMPUTE_32F_FAST_TF32). cuBLAS is
// column-major; a row-major C = A * B is the column-major C^T = B^T * A^T, so the operands go
// in swapped, and an operand stored transposed goes in with CUBLAS_OP_T.
#include <stdexcept>

#include "smemlab/error.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul::detail {
namespace {

void launch_cublas(const GemmArgs& g, const LaunchContext& ctx) {
  if (ctx.cublas == nullptr) throw std::invalid_argument("gemm: the cublas variant needs a handle");
  cudaDataType_t data = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  switch (g.input) {
    case DType::bf16: data = CUDA_R_16BF; break;
    case DType::f16: data = CUDA_R_16F; break;
    case DType::tf32: compute = CUBLAS_COMPUTE_32F_FAST_TF32; break;
    default: throw std::invalid_argument("gemm: the tensor-core inputs are bf16, half or tf32");
  }
  SMEMLAB_CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));
  const cublasOperation_t op_b = g.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = g.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  SMEMLAB_CUBLAS_CHECK(cublasGemmEx(ctx.cublas, op_b, op_a, g.n, g.m, g.k, &g.alpha, g.b, data, g.ldb, g.a, data,
                                    g.lda, &g.beta, g.c, CUDA_R_32F, g.ldc, compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

TensorVariant cublas_variant() {
  return {{.family = "tensor-matmul",
           .name = "cublas",
           .description = "cuBLAS GemmEx with the same input types, FP32 accumulation: the reference",
           .technique = "vendor library: what a user would call instead of writing a kernel",
           .smem = SmemKind::dynamic_alloc,
           .reference = true,
           .dtypes = kTensorInputs,
           .why_no_model = "a vendor library: its kernels are not modelled",
           .reads_transposed = true},
          launch_cublas};
}

}  // namespace smemlab::tensor_matmul::detail
