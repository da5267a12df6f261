// 08 — warp specialisation. Changed from 07: a producer warpgroup issues the copies and two
// consumer warpgroups multiply, each a 64 x 256 slice of a 128 x 256 tile (4 stages of 48 KiB).
// A full and an empty mbarrier per stage hand it from producer to consumers and back, so a
// consumer never waits for the others, and its next wgmma batch is issued before the previous
// one has finished (one batch in flight while it waits). setmaxnreg gives the producer 40
// registers and each consumer 232, room for 128 accumulators. Should buy: copies, math and the
// wait for math overlapped; about 1.5x of 07 at 4096^3, near cuBLAS.
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul::detail {

using WarpSpecializedConfig = WgmmaConfig<2, 1, 256, 4, true>;
constexpr int kSpecializedRasterGroup = 8;

TensorVariant warp_specialized_variant() {
  return {{.family = "tensor-matmul",
           .name = "warp_specialized",
           .description = "a TMA producer warpgroup and two wgmma consumer warpgroups on 128x256 tiles, full/empty "
                          "mbarriers, setmaxnreg",
           .technique = "warp specialisation: copies and math in different warps, overlapped through a ring of stages",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = wgmma_model<WarpSpecializedConfig>,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_wgmma<WarpSpecializedConfig>(g, ctx, kSpecializedRasterGroup);
          }};
}

}  // namespace smemlab::tensor_matmul::detail
