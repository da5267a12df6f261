#pragma once
// Split-K's second half: the partial sums of K's ranges, each an m x n product written whole
// into the workspace, added in range order and stored to C. The order is fixed, so a split
// product rounds the same way on every run; a different number of ranges (or a different
// tile) adds in another order and may round differently.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "smemlab/tensor_matmul.hpp"

namespace smemlab::tensor_matmul::detail {

// Elements of K in one K-step of the tensor-core kernels: 128 bytes of the input type.
[[nodiscard]] constexpr int k_step(DType input) { return 128 / static_cast<int>(dtype_bytes(input)); }

// K's steps of k_step elements divided into at most `splits` ranges of steps_per_range steps,
// none empty: count = ceil(steps / steps_per_range).
struct KRanges {
  int count = 1;
  int steps_per_range = 0;
};
[[nodiscard]] KRanges k_ranges(int k, int k_step, int splits);

// Bytes of `count` partial products of an m x n output.
[[nodiscard]] std::size_t partial_sums_bytes(const GemmArgs& args, int count);

// For the lifetime of the object: `bytes` of room for partial sums (partial_sums_bytes of K's
// ranges, or stream-K's slots and flags), in the caller's workspace from `offset` bytes past its
// aligned start (rounded up to 256), or allocated on the stream for the call. Throws
// std::invalid_argument, before any work, when the caller's workspace is too small for them (a
// choice of ranges other than the variants', made by hand).
class PartialSums {
 public:
  PartialSums(const GemmArgs& args, std::size_t bytes, std::size_t offset, cudaStream_t stream);
  ~PartialSums();
  PartialSums(const PartialSums&) = delete;
  PartialSums& operator=(const PartialSums&) = delete;
  [[nodiscard]] float* data() const { return data_; }

 private:
  float* data_ = nullptr;
  void* owned_ = nullptr;
  cudaStream_t stream_;
};

// C = alpha * (partials[0] + partials[1] + ... + partials[count - 1]) + beta * C, the sum
// taken in that order for every element.
void sum_partials(const float* partials, int count, const GemmArgs& args, cudaStream_t stream);

}  // namespace smemlab::tensor_matmul::detail
