// 11 — rasterisation. Changed from 10: block b no longer takes tile (b / tiles_n, b % tiles_n).
// Blocks run down a group of 8 block-rows, then move one block-column right. The ~264 blocks
// resident at once (2 per SM) move through K together, so what they read per K-step is one
// slice of each A row-panel and B column-panel they touch. Row-major at 8192^3 (64 tiles per
// row) they cover 4 block-rows: 4 + 64 = 68 panels for 256 tiles; in groups of 8 rows, 8 x 33
// tiles: 8 + 33 = 41 panels, 40% fewer bytes from L2/DRAM. At 4096^3 (32 tiles per row)
// row-major already covers 8 x 32, so nothing changes. Should buy: nothing at 4096, a few
// percent at 8192 if L2 bandwidth matters at all at this arithmetic intensity.
#include "matmul/tiled_gemm.cuh"
#include "matmul/models.hpp"
#include "matmul/variants.hpp"

namespace smemlab::matmul::detail {

using RasterizedConfig = TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 2>;  // 10's configuration

GemmVariant rasterized_variant() {
  return {{.family = "matmul",
           .name = "rasterized",
           .description = "10 with blocks ordered in groups of 8 block-rows for L2 reuse",
           .technique = "rasterisation: resident blocks share A and B tiles in L2",
           .smem = SmemKind::dynamic_alloc,
           .model = [](const Shape& s, DType) { return models::warp_tiled(s, RasterizedConfig::kStages); }},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_config<RasterizedConfig>(g, ctx, 8, 1);
          }};
}

}  // namespace smemlab::matmul::detail
