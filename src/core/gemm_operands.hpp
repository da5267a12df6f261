#pragma once
// What both GEMM families do with their operands in one place: the checks, in one wording, of
// A (m x k, or stored as its k x m transpose), B (k x n, or stored as n x k) and C (m x n), each
// row-major with a leading dimension at least its stored row's length; and row-major copies of
// operands stored transposed, for the kernels that read A and B row-major only.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/copy_rows.hpp"

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

// A family's GemmArgs (matmul or tensor_matmul) as the operands both check and copy.
template <class Args>
[[nodiscard]] GemmOperands operands_of(const Args& g) {
  return {g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, g.c, g.ldc, g.transpose_a, g.transpose_b};
}

namespace detail {

// Whether a row of K elements ends on a 16-byte chunk: the kernels that read aligned rows copy
// whole 16-byte chunks, and a row that ends inside one, as the last of an allocation, would be
// read past its end.
[[nodiscard]] inline bool row_of_whole_chunks(int k, std::size_t element_bytes) {
  return static_cast<std::size_t>(k) * element_bytes % 16 == 0;
}

// A of one row is read as that row alone: its lda never moves a read, so where the row is whole
// 16-byte chunks it becomes K, and the row is copied only where its start is not 16-byte
// aligned (an lda that is not whole 16-byte chunks would otherwise send it through a copy). A of one row stored transposed with lda 1 (K x 1, its elements consecutive) is the same
// memory as the row, so it is read as is too.
template <class Args>
[[nodiscard]] Args with_row_vector_a(Args g, std::size_t element_bytes) {
  if (g.m == 1 && (!g.transpose_a || g.lda == 1) && row_of_whole_chunks(g.k, element_bytes)) {
    g.transpose_a = false;
    g.lda = g.k;
  }
  return g;
}

// The same for B of one column whose K elements are whole 16-byte chunks: stored as is with ldb
// 1 (K x 1, its elements consecutive), or stored transposed (one row of K), it is the row of
// B's transpose, and is given as such with ldb K. For the calls that read B's transpose as
// stored (the default tensor-core call): the row then needs no copy where its start is 16-byte
// aligned.
template <class Args>
[[nodiscard]] Args with_column_vector_b(Args g, std::size_t element_bytes) {
  if (g.n == 1 && (g.transpose_b || g.ldb == 1) && row_of_whole_chunks(g.k, element_bytes)) {
    g.transpose_b = true;
    g.ldb = g.k;
  }
  return g;
}

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

// A 256-byte boundary standing for where RowMajorOperands puts a copy, for sizing scratch.
[[nodiscard]] const void* copy_start_placeholder();

// A family's arguments as its kernels see them once the operands stored transposed are copied
// row-major (rows on 128-byte lines, each copy on a 256-byte boundary): what they need beside the
// copies is sized on these.
template <class Args>
[[nodiscard]] Args as_copied(Args g, std::size_t element_bytes) {
  using Pointer = decltype(g.a);
  if (g.transpose_a) {
    g.a = static_cast<Pointer>(copy_start_placeholder());
    g.lda = line_aligned_ld(g.k, element_bytes);
  }
  if (g.transpose_b) {
    g.b = static_cast<Pointer>(copy_start_placeholder());
    g.ldb = line_aligned_ld(g.n, element_bytes);
  }
  g.transpose_a = g.transpose_b = false;
  return g;
}

// Calls launch(args) with each operand stored transposed replaced by a row-major copy (made on
// the stream at the workspace's start, which the family's workspace_bytes counts) and the rest
// of the workspace passed on; with args as they are where neither is. copy_a or copy_b false:
// that operand stays as stored, for kernels that read it so.
template <class Args, class Launch>
void with_row_major_operands(const Args& args, std::size_t element_bytes, cudaStream_t stream, Launch&& launch,
                             bool copy_b = true, bool copy_a = true) {
  GemmOperands copied = operands_of(args);
  copied.transpose_a = args.transpose_a && copy_a;
  copied.transpose_b = args.transpose_b && copy_b;
  if (!copied.transpose_a && !copied.transpose_b) {
    launch(args);
    return;
  }
  const RowMajorOperands copies(copied, element_bytes, args.workspace, args.workspace_size, stream);
  using Pointer = decltype(args.a);
  Args plain = args;
  plain.a = static_cast<Pointer>(copies.operands().a);
  plain.lda = copies.operands().lda;
  plain.b = static_cast<Pointer>(copies.operands().b);
  plain.ldb = copies.operands().ldb;
  plain.transpose_a = args.transpose_a && !copy_a;
  plain.transpose_b = args.transpose_b && !copy_b;
  plain.workspace = copies.rest();
  plain.workspace_size = copies.rest_size();
  launch(plain);
}

}  // namespace detail
}  // namespace smemlab
