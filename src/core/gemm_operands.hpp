#pragma once
// What both GEMM families do with their operands in one place: the checks, in one wording, of
// A (m x k, or stored as its k x m transpose), B (k x n, or stored as n x k) and C (m x n), each
// row-major with a leading dimension at least its stored row's length; and row-major copies of
// operands stored transposed, for the kernels that read A and B row-major only.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace smemlab {

struct GemmOperands {
  int m, n, k;
  const void* a;
  int lda;
  const void* b;
  int ldb;
  const void* c;
  int ldc;
  bool transpose_a = false;
  bool transpose_b = false;
};

// Throws std::invalid_argument ("gemm: ...") naming the first violated condition.
void validate_gemm_operands(const GemmOperands& g);

namespace detail {

// For the kernels that read A and B row-major only: a logic_error naming `kernel` where either
// is stored transposed (the public calls copy such operands first; a direct launch must too).
void require_row_major(bool transpose_a, bool transpose_b, const char* kernel);

// Bytes of scratch that RowMajorOperands takes for these operands of element_bytes each,
// alignment included: 0 where neither is stored transposed.
[[nodiscard]] std::size_t row_major_copy_bytes(const GemmOperands& g, std::size_t element_bytes);

// For the lifetime of the object: the operands with each one stored transposed replaced by a
// row-major copy (rows on 128-byte lines), made on the stream at the start of `workspace` (at
// least row_major_copy_bytes of it) or, without one, in memory allocated on the stream for the
// call. operands() are then row-major, and rest() is the workspace past the copies.
class RowMajorOperands {
 public:
  RowMajorOperands(const GemmOperands& g, std::size_t element_bytes, void* workspace, std::size_t workspace_size,
                   cudaStream_t stream);
  ~RowMajorOperands();
  RowMajorOperands(const RowMajorOperands&) = delete;
  RowMajorOperands& operator=(const RowMajorOperands&) = delete;
  [[nodiscard]] const GemmOperands& operands() const { return g_; }
  [[nodiscard]] void* rest() const { return rest_; }
  [[nodiscard]] std::size_t rest_size() const { return rest_size_; }

 private:
  void copy_all(const GemmOperands& g, std::size_t element_bytes, char* scratch, cudaStream_t stream);
  GemmOperands g_;
  void* rest_;
  std::size_t rest_size_;
  void* owned_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace detail
}  // namespace smemlab
