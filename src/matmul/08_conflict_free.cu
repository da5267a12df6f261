// 08 — a conflict-free shared layout for 07. Two changes, each shown by `smemlab banks`:
// A's transposed tile gets rows of 132 floats (the float4 store of A becomes four stores whose
// 32 lanes land in 32 banks, 1 wavefront each instead of 2: '((tx%2)*4)*132 + tx/2' against
// '...*128...'), and each thread owns four 4x4 blocks of C spread 64 rows and 64 columns apart
// instead of one 8x8 block, so the 16 lanes that read B read 256 contiguous bytes: 4
// wavefronts per LDS.128 instead of 8 ('tx%16' against '(tx%16)*2', --width 16). Per warp and
// k the fragment reads fall from 20 wavefronts to 12. The spread blocks also make C stores
// 256 contiguous bytes per 16 lanes. Should buy: a few percent while the FFMA pipe is not yet
// the limit (07 is at about half of peak).
#include "matmul/models.hpp"
#include "matmul/variants.hpp"
#include "matmul/vectorized_tile.cuh"

namespace smemlab::matmul::detail {

GemmVariant conflict_free_variant() {
  return {{.family = "matmul",
           .name = "conflict_free",
           .description = "07 with A rows padded to 132 floats and 4x4 sub-tiles 64 apart",
           .technique = "conflict-free layout: padding for the transposed store, spread "
                        "sub-tiles for contiguous B reads",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType) { return models::vectorized_tile(s, true); }},
          launch_vectorized_tile<true>};
}

}  // namespace smemlab::matmul::detail
