// 05 — larger warp tiles and rasterised blocks. Changed from 04: 128 x 256 blocks of 8 warps
// with 64 x 64 warp tiles (32 mma.syncs per 32 bytes of K for 4 + 4 ldmatrix.x4, where 04 has
// 16 for 4 + 2), 4 stages, and blocks ordered in groups of 8 block-rows so that the blocks
// resident together share their tiles of A and B in L2. The fragments are read just before
// use (the compiler still hoists the reads): 128 accumulators leave no room for a second
// buffer. Should buy: fewer shared-memory reads per mma (1/4 instead of 3/8) and half the
// global reads per output; +30% or more at 4096^3.
#include "tensor_matmul/mma_gemm.cuh"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul::detail {

using WarpTileConfig = MmaConfig<128, 256, 64, 64, 4, Layout::swizzled, false>;
constexpr int kRasterGroup = 8;

TensorVariant warp_tile_variant() {
  return {{.family = "tensor-matmul",
           .name = "warp_tile",
           .description = "64x64 warp tiles in 128x256 blocks, 4 stages, blocks rasterised in groups of 8 block-rows",
           .technique = "register blocking: more mma.syncs per fragment loaded; L2 reuse from block order",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = [](const Shape& s, DType type) { return models::mma_tiles(s, type, model_config<WarpTileConfig>()); }},
          [](const GemmArgs& g, const LaunchContext& ctx) { launch_mma<WarpTileConfig>(g, ctx.stream, kRasterGroup); }};
}

}  // namespace smemlab::tensor_matmul::detail
