#include "matmul/workspace.hpp"

#include <stdexcept>
#include <string>

#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {

WorkspaceScope::WorkspaceScope(const GemmArgs& g, const WorkspaceLayout& layout, cudaStream_t stream)
    : layout_(layout), stream_(stream) {
  if (layout.bytes == 0) return;
  if (g.workspace != nullptr) {
    if (g.workspace_size < layout.bytes)
      throw std::invalid_argument("gemm: workspace of " + std::to_string(g.workspace_size) +
                                  " bytes is smaller than the " + std::to_string(layout.bytes) + " needed");
    base_ = g.workspace;
    return;
  }
  SMEMLAB_CUDA_CHECK(cudaMallocAsync(&base_, layout.bytes, stream));
  owned_ = true;
}

WorkspaceScope::~WorkspaceScope() {
  // Stream-ordered: the memory returns to the pool once the launch before it has finished.
  if (owned_) (void)cudaFreeAsync(base_, stream_);
}

}  // namespace smemlab::matmul::detail
