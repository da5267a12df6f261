// 04 — a 3-stage cp.async pipeline with fragments double-buffered in registers. Changed from
// 03: the copies of the next two K-steps are in flight while one is multiplied, behind one
// barrier per K-step instead of two; and the fragments of the next 32 bytes of K are read
// while the current mma.syncs run. Should buy: 03 waits for every copy with the tensor cores
// idle (a K-step is ~0.5 us of copying for ~0.3 us of mma at 128 x 128); hiding it should
// nearly double the throughput.
#include "tensor_matmul/mma_gemm.cuh"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul::detail {

using PipelinedConfig = MmaConfig<128, 128, 64, 32, 3, Layout::swizzled, true>;

TensorVariant pipelined_variant() {
  return {{.family = "tensor-matmul",
           .name = "pipelined",
           .description = "03 with a 3-stage cp.async pipeline and double-buffered fragments",
           .technique = "multi-stage pipelining: copies of K-steps k+1, k+2 overlap the mma.syncs of step k",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = [](const Shape& s, DType type) { return models::mma_tiles(s, type, model_config<PipelinedConfig>()); }},
          [](const GemmArgs& g, const LaunchContext& ctx) { launch_mma<PipelinedConfig>(g, ctx.stream, 0); }};
}

}  // namespace smemlab::tensor_matmul::detail
