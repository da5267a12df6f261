#pragma once
// Operands whose rows are not 16-byte aligned (an unaligned pointer, or K or N not a multiple
// of 8 bf16/half or 4 tf32) cannot be copied 16 bytes at a time, by cp.async or by TMA. The
// variants that need aligned rows copy such an operand into a buffer whose rows start on
// 128-byte boundaries (each 128-byte K-step of a row is then one cache line), in the caller's
// workspace or in one allocated on the stream for the call, and run on the copy.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "smemlab/launch.hpp"
#include "smemlab/tensor_matmul.hpp"

namespace smemlab::tensor_matmul::detail {

// How a variant reads B. wgmma takes tf32 operands K-major only (K contiguous), and B is
// row-major (N contiguous): those variants read B's transpose, N x K, copied first.
enum class BOperand { row_major, transposed };
// How a variant reads A: row-major (M x K), or its transpose (K x M) where the caller stores it
// so (the Hopper tiles, bf16 and half: wgmma's transpose flag for A).
enum class AOperand { row_major, transposed };

// Whether an operand's rows can be copied 16 bytes at a time (by cp.async or TMA): its start on a
// 16-byte boundary and its leading dimension (elements of `type`) whole 16-byte chunks.
[[nodiscard]] bool rows_16b_aligned(const void* p, int ld, DType type);

// Where the variants' scratch starts in the caller's workspace: its first 256-byte boundary, so
// that the copies and partial sums placed in it are aligned whatever the caller's pointer
// (workspace_bytes counts the up to 255 bytes skipped); null without a workspace.
[[nodiscard]] char* workspace_start(const GemmArgs& args);
// Bytes skipped at the workspace's start for alignment.
inline constexpr std::size_t kWorkspaceAlignment = 256;

// For the lifetime of the object: args with A and B replaced by aligned copies where needed
// (and B by its transpose, ldb then its leading dimension, when asked; A read transposed only
// as the caller stores it).
class AlignedOperands {
 public:
  AlignedOperands(const GemmArgs& args, const LaunchContext& ctx, BOperand b = BOperand::row_major,
                  AOperand a = AOperand::row_major);
  ~AlignedOperands();
  AlignedOperands(const AlignedOperands&) = delete;
  AlignedOperands& operator=(const AlignedOperands&) = delete;
  [[nodiscard]] const GemmArgs& args() const { return args_; }
  // Bytes of the caller's workspace the copies take, from workspace_start (0 without one).
  [[nodiscard]] std::size_t workspace_used() const { return workspace_used_; }

 private:
  GemmArgs args_;
  std::size_t workspace_used_ = 0;
  void* owned_ = nullptr;  // allocated on the stream when the caller gave no workspace
  cudaStream_t stream_;
};

}  // namespace smemlab::tensor_matmul::detail
