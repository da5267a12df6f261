// 10 — a three-stage cp.async pipeline: gemm_kernels.cuh's kernel with three stages instead of
// one. Changed from 09: the copies of the next two K-steps are in flight while one is
// multiplied, and one barrier per K-step replaces two (a stage is rewritten only after the
// barrier that follows its last use). Should buy: the copy latency that 09 exposes, most of
// its gap to the FMA limit at one block of 8 warps per scheduler pair: +30% or more.
#include "matmul/gemm_launch.cuh"
#include "matmul/models.hpp"
#include "matmul/variants.hpp"

namespace smemlab::matmul::detail {

using PipelinedConfig = TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 2>;

GemmVariant pipelined_variant() {
  return {{.family = "matmul",
           .name = "pipelined",
           .description = "09 with a 3-stage cp.async pipeline and one barrier per K-step",
           .technique = "multi-stage pipelining: copies of K-steps k+1, k+2 overlap step k",
           .smem = SmemKind::dynamic_alloc,
           .model = [](const Shape& s, DType) { return models::warp_tiled(s, PipelinedConfig::kStages); }},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_config<PipelinedConfig>(g, ctx, {.config = {}, .group = 0});
          }};
}

}  // namespace smemlab::matmul::detail
