#pragma once
// The checks both GEMM families make of their operands, in one wording: row-major A (m x k),
// B (k x n) and C (m x n), each with a leading dimension at least its row's length.
namespace smemlab {

struct GemmOperands {
  int m, n, k;
  const void* a;
  int lda;
  const void* b;
  int ldb;
  const void* c;
  int ldc;
};

// Throws std::invalid_argument ("gemm: ...") naming the first violated condition.
void validate_gemm_operands(const GemmOperands& g);

}  // namespace smemlab
