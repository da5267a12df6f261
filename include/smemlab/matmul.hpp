#pragma once
// Matrix multiplication: C = alpha * op(A) * op(B) + beta * C in float, row-major with leading
// dimensions (the Matrix {width, height, stride} of “Matrix Multiplication Using Shared Memory”),
// any M, N, K >= 1; A and B each stored as is or transposed (see GemmArgs).
#include <cstddef>
#include <span>
#include <string_view>

#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::matmul {

struct GemmArgs {
  int m = 0;  // rows of op(A) and C
  int n = 0;  // columns of op(B) and C
  int k = 0;  // columns of op(A), rows of op(B)
  float alpha = 1.0F;
  const float* a = nullptr;
  int lda = 0;  // >= k (>= m where transpose_a)
  const float* b = nullptr;
  int ldb = 0;  // >= n (>= k where transpose_b)
  float beta = 0.0F;  // 0: C is written without being read, as in BLAS
  float* c = nullptr;
  int ldc = 0;  // >= n
  // Scratch for the launches of the autotuned variant that divide K or copy B to aligned rows:
  // at least workspace_bytes(variant, args) bytes of device memory, any content on entry, and
  // free for reuse by the next call on the same stream (a call sets up the counters it keeps
  // there itself, with one cudaMemsetAsync on the stream). A workspace too small is refused
  // before any work is queued. When null, such launches allocate one on the stream for the call
  // (cudaMallocAsync: stream-ordered, and so capturable in a CUDA graph).
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  // A stored as its transpose, K x M (op(A) = Aᵀ of what is stored: BLAS's transa = 'T'); B
  // stored as N x K. Variants other than cuBLAS read row-major copies of such operands, made
  // first in the workspace (workspace_bytes counts them) or in memory allocated for the call.
  bool transpose_a = false;
  bool transpose_b = false;
};

// Throws std::invalid_argument naming the first violated condition.
void validate(const GemmArgs& args);

// A variant's entry point, and the workspace it needs for given arguments (null: none).
struct Launch {
  void (*run)(const GemmArgs&, const LaunchContext&);
  std::size_t (*workspace_bytes)(const GemmArgs&) = nullptr;
};
using GemmVariant = Variant<Launch>;

// Registered variants in teaching order; the reference ("cublas") first.
[[nodiscard]] std::span<const GemmVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const GemmVariant& find(std::string_view name);

// Workspace a variant needs for these arguments (see GemmArgs::workspace): 0 for most; the
// autotuned variant needs some when it divides K, and every variant but cuBLAS room for
// row-major copies of operands stored transposed.
[[nodiscard]] std::size_t workspace_bytes(const GemmVariant& variant, const GemmArgs& args);

// Validates the arguments, then launches the variant asynchronously on ctx.stream.
// Throws, before any work is queued, std::invalid_argument for bad arguments (a workspace
// too small included); and
// CudaError (smemlab/error.hpp) naming this routine when a CUDA or cuBLAS call fails. Safe to
// call from several threads at once, each with its own stream and workspace, and to capture
// into a CUDA graph: docs/library-contract.md.
void gemm(const GemmVariant& variant, const GemmArgs& args, const LaunchContext& ctx);
// The default call: the variant "auto", which picks a kernel, its tile and the split of K for
// these arguments on the current device.
void gemm(const GemmArgs& args, const LaunchContext& ctx);

// Double-precision CPU reference of alpha * A * B + beta * C_in, written to out (ld ldo).
// c_in may be null when beta == 0. Uses every hardware thread.
void reference_gemm(int m, int n, int k, double alpha, const float* a, int lda, const float* b,
                    int ldb, double beta, const float* c_in, int ldc, double* out, int ldo);

// Largest accepted ||C - C_ref||_F / ||C_ref||_F for an FP32 product of depth k; see the
// definition for the error model behind it.
[[nodiscard]] double relative_tolerance(int k);

}  // namespace smemlab::matmul
