// 07 — 16-byte accesses: A and B are loaded from global memory as float4 (when rows are
// aligned), A is stored transposed in shared memory, and both fragments are read as float4.
// Changed from 06: per K-step a thread issues 2 global loads instead of 8, and 4 LDS.128
// instead of 16 scalar shared loads per k (06 reads A down a column: 8 scalar loads). Should
// buy: fewer instructions between the FFMAs, +15-25%. Its shared layout still has conflicts;
// step 08 removes them.
#include "matmul/models.hpp"
#include "matmul/variants.hpp"
#include "matmul/vectorized_tile.cuh"

namespace smemlab::matmul::detail {

GemmVariant vectorized_variant() {
  return {{.family = "matmul",
           .name = "vectorized",
           .description = "06 with float4 global loads, A transposed in shared memory, LDS.128",
           .technique = "vector accesses: 4 LDS.128 per 64 FMAs; transposed A makes a thread's "
                        "A values contiguous",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType) { return models::vectorized_tile(s, false); }},
          launch_vectorized_tile<false>};
}

}  // namespace smemlab::matmul::detail
