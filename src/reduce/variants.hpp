#pragma once
#include "smemlab/reduce.hpp"

// The reduction steps in teaching order, the reference first: each line names the function
// that builds a variant's record in its own file (src/reduce/NN_*.cu). This list is the family's
// table; a new variant is its file and one line here.
#define SMEMLAB_REDUCE_STEPS(STEP)                                                      \
  STEP(cub_variant)                   /* 00 cub::DeviceReduce::Sum: the reference    */ \
  STEP(cpu_float_variant)             /* 01 a float loop on the CPU: big eats small  */ \
  STEP(cpu_reference_variant)         /* 02 compensated double sum on the CPU        */ \
  STEP(global_memory_variant)         /* 03 halving in global memory                 */ \
  STEP(shared_static_variant)         /* 04 halving in static shared memory          */ \
  STEP(shared_dynamic_variant)        /* 05 the same in dynamic shared memory        */ \
  STEP(interleaved_divergent_variant) /* 06 interleaved pairs: divergent warps       */ \
  STEP(interleaved_strided_variant)   /* 07 strided index: bank conflicts instead    */ \
  STEP(sequential_variant)            /* 08 sequential pairs: neither                */ \
  STEP(first_add_variant)             /* 09 the first add while loading              */ \
  STEP(warp_shuffle_variant)          /* 10 the last warp by shuffles                */ \
  STEP(grid_stride_variant)           /* 11 persistent blocks, grid-stride loads     */ \
  STEP(vectorized_variant)            /* 12 16-byte loads                            */ \
  STEP(single_pass_variant)           /* 13 one launch: the last block adds the sums */

namespace smemlab::reduce::detail {

#define SMEMLAB_DECLARE_STEP(make) ReduceVariant make();
SMEMLAB_REDUCE_STEPS(SMEMLAB_DECLARE_STEP)
#undef SMEMLAB_DECLARE_STEP

}  // namespace smemlab::reduce::detail
