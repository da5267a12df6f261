// 02 — mma.sync with fragments loaded by ldmatrix from padded tiles. Same blocks and copies
// as 01 (128 x 128, 8 warps, one K-step at a time), but each warp owns a 64 x 32 tile of C as
// 4 x 4 mma.sync tiles of 16 x 8, and fills its fragments itself: one ldmatrix.x4 gives the
// 16 x 16 piece of A that one mma needs (tf32: 16 x 8), one ldmatrix.x4.trans two pieces of B.
// The 16 bytes of padding after every row put the 8 rows that one ldmatrix phase reads in 8
// different 16-byte bank groups. Should buy: the layout of fragments in registers is now
// known, so the accumulators never leave registers until the end (01 stages them through
// shared memory) and the loads are 4 ldmatrix where WMMA issues more; +20-50% over 01.
#include "tensor_matmul/mma_gemm.cuh"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul::detail {

using PaddedConfig = MmaConfig<128, 128, 64, 32, 1, Layout::padded, false>;

TensorVariant mma_padded_variant() {
  return {{.family = "tensor-matmul",
           .name = "mma_padded",
           .description = "mma.sync m16n8k16, fragments by ldmatrix.x4 from tiles padded 16 bytes a row",
           .technique = "ldmatrix: a warp loads four 8x8 matrices in one instruction; padding avoids bank conflicts",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = [](const Shape& s, DType type) { return models::mma_tiles(s, type, model_config<PaddedConfig>()); }},
          [](const GemmArgs& g, const LaunchContext& ctx) { launch_mma<PaddedConfig>(g, ctx.stream, 0); }};
}

}  // namespace smemlab::tensor_matmul::detail
