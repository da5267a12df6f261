// 09 — warp tiling: block tile 128x128 -> eight warp tiles of 32x64 -> 8x8 thread tiles of
// four 4x4 pieces, the kernel of gemm_kernels.cuh with one stage. Changed from 08: a warp's 32
// lanes cover a 4 x 8 patch of thread tiles, each quarter-warp 4 lane rows x 2 lane columns
// (12 fragment wavefronts per warp and k, as in 08, in the layout the later steps build on),
// and the tiles arrive through cp.async (global to shared without registers), one stage deep:
// copy, wait, compute. Should buy: a few percent from the registers the copies no longer
// need; the copy latency is still exposed at every K-step.
#include "matmul/gemm_launch.cuh"
#include "matmul/models.hpp"
#include "matmul/variants.hpp"

namespace smemlab::matmul::detail {

using WarpTileConfig = TileConfig<128, 128, 8, 32, 64, 8, 8, 1, 2>;

GemmVariant warp_tile_variant() {
  return {{.family = "matmul",
           .name = "warp_tile",
           .description = "128x128x8 block, 32x64 warp tiles, 8x8 thread tiles; cp.async, 1 stage",
           .technique = "warp tiling: 4x8 lanes per warp make each fragment read one wavefront",
           .smem = SmemKind::dynamic_alloc,
           .model = [](const Shape& s, DType) { return models::warp_tiled(s, WarpTileConfig::kStages); }},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_config<WarpTileConfig>(g, ctx, {.config = {}, .group = 0});
          }};
}

}  // namespace smemlab::matmul::detail
