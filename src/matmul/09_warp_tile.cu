// 09 — warp tiling: block tile 128x128 -> eight warp tiles of 32x64 -> 8x8 thread tiles made of
// four 4x4 pieces. Changed from 08: a warp's 32 lanes now cover a 4 x 8 patch of thread tiles
// (08: 2 x 16), numbered so that each quarter-warp holds 4 lane rows x 2 lane columns: A reads
// cost 4 wavefronts per LDS.128 and B reads 2 ('tx%4' and '(tx/4)%8' with --width 16), 12 per
// warp and k as in 08, but the warp's data is 4x8 outer products' worth: the layout the later
// steps build on. Tiles arrive through cp.async (global ->
// shared without registers; A's 4-byte copies write the transposed tile conflict-free), but
// with one stage: copy, wait, compute, wait. Should buy: a few percent from the registers the
// copies no longer need; the copy latency is still exposed at every K-step.
#include "matmul/tiled_gemm.cuh"
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
            launch_config<WarpTileConfig>(g, ctx, 0, 1);
          }};
}

}  // namespace smemlab::matmul::detail
