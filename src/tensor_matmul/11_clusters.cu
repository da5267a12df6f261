// 11 — thread-block clusters with TMA multicast. Changed from 10: blocks run in clusters of two
// on tiles one above the other, which need the same tile of B. Each block copies half of it
// and the copy engine writes that half into both blocks' shared memory (multicast), so B
// crosses from L2 once per pair instead of twice: a quarter less L2-to-SM traffic. A stage is
// refilled only when the consumers of both blocks are done with it (they arrive on each other's
// empty barriers). Should buy: little where L2 keeps up (55% of its peak in 09 at 4096^3);
// +1-3% from fewer L2 requests waiting behind each other.
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul::detail {

using ClusterConfig = WgmmaConfig<2, 1, 256, 4, true, true, true, 2>;
constexpr int kClusterRasterGroup = 8;

TensorVariant clusters_variant() {
  return {{.family = "tensor-matmul",
           .name = "clusters",
           .description = "10 in clusters of two blocks on vertically adjacent tiles, B's tile multicast by TMA to both",
           .technique = "thread-block clusters: one copy of a shared operand feeds two SMs",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = wgmma_model<ClusterConfig>,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) { launch_wgmma<ClusterConfig>(g, ctx, kClusterRasterGroup); }};
}

}  // namespace smemlab::tensor_matmul::detail
