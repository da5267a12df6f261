#pragma once
// A matrix copied between leading dimensions: how the GEMMs give an operand whose rows are not
// 16-byte aligned rows that are, so that their K-loops copy it 16 bytes at a time; and copied
// transposed: how they give an operand stored transposed the row-major layout a kernel reads.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace smemlab::detail {

// The leading dimension, in elements, whose rows start on 128-byte boundaries: each K-step of
// a row is then one cache line, where 16-byte alignment alone would spread it over two.
constexpr int line_aligned_ld(int cols, std::size_t element_bytes) {
  const auto line = static_cast<int>(128 / element_bytes);
  return (cols + line - 1) / line * line;
}

// rows x cols elements of element_bytes (2 or 4) each, src row r at src + r * ld_src, to dst
// likewise; asynchronous on `stream`, the launch checked.
void copy_rows(const void* src, int ld_src, void* dst, int ld_dst, int rows, int cols, std::size_t element_bytes,
               cudaStream_t stream);

// The transpose of src (rows x cols, element_bytes 2 or 4, leading dimension ld_src) into dst
// (cols x rows, leading dimension ld_dst >= rows), through 32 x 32 tiles in shared memory so that
// both the reads and the writes follow rows; asynchronous on `stream`, the launch checked.
void copy_transposed(const void* src, int ld_src, void* dst, int ld_dst, int rows, int cols,
                     std::size_t element_bytes, cudaStream_t stream);

}  // namespace smemlab::detail
