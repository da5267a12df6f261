// 07 — TMA and wgmma (Hopper). Changed from 05: no thread copies anything or reads a
// fragment. The copy engine moves each K-step's tiles into 128-byte-swizzled shared memory and
// signals an mbarrier when the bytes have landed; one warpgroup (4 warps) multiplies 128 x 128
// tiles with wgmma, which reads A and B straight from shared memory (4 stages of 32 KiB). Should
// buy: the ldmatrix and address instructions that kept 05 issue-bound disappear (one wgmma
// m64n128k16 does the work of 32 mma.syncs and their fragment loads); with the stages refilled
// only after the whole warpgroup waits for its wgmmas, copies and math still alternate within
// a block, so expect about 1.3x of 05, not yet cuBLAS.
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul::detail {

using TmaWgmmaConfig = WgmmaConfig<1, 2, 128, 4, false>;
constexpr int kTmaRasterGroup = 8;

TensorVariant tma_wgmma_variant() {
  return {{.family = "tensor-matmul",
           .name = "tma_wgmma",
           .description = "TMA copies into 128-byte-swizzled stages, mbarrier waits, one warpgroup of wgmma on 128x128 tiles",
           .technique = "the copy engine fills shared memory and wgmma reads it directly: no copy or fragment instructions",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = wgmma_model<TmaWgmmaConfig>,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) { launch_wgmma<TmaWgmmaConfig>(g, ctx, kTmaRasterGroup); }};
}

}  // namespace smemlab::tensor_matmul::detail
