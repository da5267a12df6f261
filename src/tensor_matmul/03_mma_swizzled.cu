// 03 — the same kernel as 02 from XOR-swizzled tiles. Rows are dense (128 bytes of K for A),
// and the 16-byte chunk c of row r is stored at chunk c ^ (r % 8): the 8 rows one ldmatrix
// phase reads sit in 8 different bank groups without a byte of padding (tf32's B, read 4
// bytes a lane over 4 rows, uses c ^ 2 (r % 4)). Changed from 02: 1/9 less shared memory per
// stage for A and 1/17 for B, and the same conflict-free reads. Should buy: little on its own
// at one stage (the padding was not what limited 02); it is the layout that the pipelined
// steps can afford more stages of, and the one Hopper's TMA writes.
#include "tensor_matmul/mma_gemm.cuh"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul::detail {

using SwizzledConfig = MmaConfig<128, 128, 64, 32, 1, Layout::swizzled, false>;

TensorVariant mma_swizzled_variant() {
  return {{.family = "tensor-matmul",
           .name = "mma_swizzled",
           .description = "02 from XOR-swizzled tiles (chunk ^ row % 8), no padding",
           .technique = "swizzling: permute 16-byte chunks within a row instead of padding rows",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = [](const Shape& s, DType type) { return models::mma_tiles(s, type, model_config<SwizzledConfig>()); }},
          [](const GemmArgs& g, const LaunchContext& ctx) { launch_mma<SwizzledConfig>(g, ctx.stream, 0); }};
}

}  // namespace smemlab::tensor_matmul::detail
