// 11 — rasterisation. Changed from 10: blocks run down a group of 8 block-rows, then move one
// block-column right, instead of row by row. The ~264 blocks resident at once move through K
// together, so each K-step reads one slice of every A row-panel and B column-panel they
// touch: at 8192^3, 8 + 33 = 41 panels in groups against 4 + 64 = 68 row by row, 40% fewer
// bytes from L2/DRAM; at 4096^3 row order already covers 8 x 32 tiles. Should buy: nothing at
// 4096, a few percent at 8192 if L2 bandwidth matters at this arithmetic intensity.
#include "matmul/gemm_launch.cuh"
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
            launch_config<RasterizedConfig>(g, ctx, {.config = {}, .group = 8});
          }};
}

}  // namespace smemlab::matmul::detail
