#pragma once
// The scratch of an SGEMM launch that divides K: one counter per divided tile, then the partial
// sums of the blocks that hold part of a tile (and after them, B's aligned copy when the launch
// makes one: gemm_launch.cuh). The caller's workspace when it gives one, whatever it holds,
// else one allocated on the stream for the launch; the launch zeroes the counters itself.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "smemlab/matmul.hpp"

namespace smemlab::matmul::detail {

struct WorkspaceLayout {
  std::size_t counter_bytes = 0;  // ints, rounded up so that the partials start 256-byte aligned
  std::size_t bytes = 0;          // 0: the launch needs no workspace

  static WorkspaceLayout of(std::size_t tiles, std::size_t partial_floats) {
    WorkspaceLayout l;
    l.counter_bytes = (tiles * sizeof(int) + 255) / 256 * 256;
    l.bytes = l.counter_bytes + partial_floats * sizeof(float);
    return l;
  }
};

class WorkspaceScope {
 public:
  WorkspaceScope(const GemmArgs& g, const WorkspaceLayout& layout, cudaStream_t stream);
  ~WorkspaceScope();
  WorkspaceScope(const WorkspaceScope&) = delete;
  WorkspaceScope& operator=(const WorkspaceScope&) = delete;

  [[nodiscard]] void* base() const { return base_; }
  [[nodiscard]] int* counters() const { return static_cast<int*>(base_); }
  [[nodiscard]] float4* partials() const {
    return reinterpret_cast<float4*>(static_cast<char*>(base_) + layout_.counter_bytes);
  }

 private:
  WorkspaceLayout layout_;
  cudaStream_t stream_;
  void* base_ = nullptr;
  bool owned_ = false;
};

}  // namespace smemlab::matmul::detail
