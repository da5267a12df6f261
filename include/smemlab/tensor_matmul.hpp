#pragma once
// Matrix multiplication on the tensor cores: C = alpha * op(A) * op(B) + beta * C with op(A)
// (M x K) and op(B) (K x N) in bf16, half or tf32 (float data multiplied in TensorFloat-32), C
// in float, products summed in float. Row-major with leading dimensions, any M, N, K >= 1, any
// alignment, as the matmul family; A and B each stored as is or transposed (see GemmArgs).
#include <cstddef>
#include <span>
#include <string_view>

#include "smemlab/dtype.hpp"
#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::tensor_matmul {

struct GemmArgs {
  DType input = DType::bf16;  // bf16 or f16: A and B hold 2-byte elements; tf32: floats
  int m = 0;                  // rows of op(A) and C
  int n = 0;                  // columns of op(B) and C
  int k = 0;                  // columns of op(A), rows of op(B)
  float alpha = 1.0F;
  const void* a = nullptr;
  int lda = 0;  // >= k, in elements (>= m where transpose_a)
  const void* b = nullptr;
  int ldb = 0;  // >= n (>= k where transpose_b)
  float beta = 0.0F;  // 0: C is written without being read, as in BLAS
  float* c = nullptr;
  int ldc = 0;  // >= n
  // Scratch for variants that copy unaligned operands into aligned buffers first or divide K
  // into ranges, at least workspace_bytes(args) bytes, any content on entry; when null they
  // allocate it on the stream for the call.
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  // A stored as its transpose, K x M (op(A) = Aᵀ of what is stored: BLAS's transa = 'T'); B
  // stored as N x K, as a linear layer keeps its weights for A * Bᵀ. See workspace_bytes.
  bool transpose_a = false;
  bool transpose_b = false;
};

// Throws std::invalid_argument naming the first violated condition.
void validate(const GemmArgs& args);

using Launch = void (*)(const GemmArgs&, const LaunchContext&);
using TensorVariant = Variant<Launch>;

// Registered variants in teaching order; the reference ("cublas") first.
[[nodiscard]] std::span<const TensorVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const TensorVariant& find(std::string_view name);
// Whether the current device has the tensor-core instructions these variants use (mma.sync
// with bf16, cp.async: compute capability 8.0 or later).
[[nodiscard]] bool device_supported();

// Validates the arguments, then launches the variant asynchronously on ctx.stream.
// Throws, before any work is queued, std::invalid_argument for bad arguments (a workspace
// too small included); and
// CudaError (smemlab/error.hpp) naming this routine when a CUDA or cuBLAS call fails. Safe to
// call from several threads at once, each with its own stream and workspace, and to capture
// into a CUDA graph: docs/library-contract.md.
void gemm(const TensorVariant& variant, const GemmArgs& args, const LaunchContext& ctx);
// The default call: the variant "auto", which picks the kernel, its tile and the ranges of K
// for these arguments on the current device.
void gemm(const GemmArgs& args, const LaunchContext& ctx);

// Rows of A and B can be copied 16 bytes at a time: aligned bases, and leading dimensions
// that keep every row aligned.
[[nodiscard]] bool operands_16b_aligned(const GemmArgs& args);
// Scratch the variants need for these arguments on the current device: room for aligned
// copies of A and B where their rows are not 16-byte aligned, for tf32 for B's transpose (the
// wgmma steps read B K-major in tf32), for row-major copies of operands stored transposed (the
// kernels that read them row-major only; cuBLAS, the default call's Hopper tiles (Bᵀ, and Aᵀ
// in bf16 and half) and its CUDA-core and in-place tiles read them as stored), and for the
// partial sums of K's ranges where the split-K step or the default call divides K (ranges x M
// x N floats); 0 for aligned bf16 or half operands, none stored transposed, whose K stays
// whole. The size depends on every field, pointers included (their alignment, and where rows
// fall on 128-byte lines, steer the default call's choice and so its ranges of K): pass the
// same arguments to workspace_bytes and to gemm.
[[nodiscard]] std::size_t workspace_bytes(const GemmArgs& args);

// Largest accepted ||C - C_ref||_F / ||C_ref||_F against an FP64 product of the same inputs,
// for inputs of this type and a product of depth k; the definition explains the error model.
[[nodiscard]] double relative_tolerance(DType input, int k);

}  // namespace smemlab::tensor_matmul
