// 09 — a persistent kernel. Changed from 08: one block per SM, each walking the tiles of C in
// raster order, a grid's width apart; K-steps are numbered across a block's tiles, so the
// producer keeps filling the ring with the next tile's K-steps while the consumers store this
// tile's accumulators. Should buy: the epilogue and the ring's first fill of every tile but
// the first are hidden, about 3-5% of a 64-step tile at 4096^3 (a block of 08 waits for both).
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul::detail {

using PersistentConfig = WgmmaConfig<2, 1, 256, 4, true, PersistentTiles>;
constexpr int kPersistentRasterGroup = 8;

TensorVariant persistent_variant() {
  return {{.family = "tensor-matmul",
           .name = "persistent",
           .description = "08 as a persistent kernel: one block per SM walks the tiles, copies of the next tile "
                          "overlap the epilogue",
           .technique = "a persistent tile loop: the ring of stages never drains between tiles",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = wgmma_model<PersistentConfig>,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_wgmma<PersistentConfig>(g, ctx, kPersistentRasterGroup);
          }};
}

}  // namespace smemlab::tensor_matmul::detail
