#pragma once
// Operands whose rows are not 16-byte aligned (an unaligned pointer, or K or N not a multiple
// of 8 bf16/half or 4 tf32) cannot be copied 16 bytes at a time, by cp.async or by TMA. The
// variants that need aligned rows copy such an operand into a buffer whose rows start on
// 128-byte boundaries (each 128-byte K-step of a row is then one cache line), in the caller's
// workspace or in one allocated on the stream for the call, and run on the copy.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "smemlab/tensor_matmul.hpp"

namespace smemlab::tensor_matmul::detail {

// For the lifetime of the object: args with A and B replaced by aligned copies where needed.
class AlignedOperands {
 public:
  AlignedOperands(const GemmArgs& args, cudaStream_t stream);
  ~AlignedOperands();
  AlignedOperands(const AlignedOperands&) = delete;
  AlignedOperands& operator=(const AlignedOperands&) = delete;
  [[nodiscard]] const GemmArgs& args() const { return args_; }

 private:
  GemmArgs args_;
  void* owned_ = nullptr;  // allocated on the stream when the caller gave no workspace
  cudaStream_t stream_;
};

}  // namespace smemlab::tensor_matmul::detail
