#pragma once
#include "smemlab/matmul.hpp"

// The matmul steps in teaching order, the reference first: each line names the function
// that builds a variant's record in its own file (src/matmul/NN_*.cu). This list is the family's
// table; a new variant is its file and one line here.
#define SMEMLAB_MATMUL_STEPS(STEP)                                                             \
  STEP(cublas_variant)                /* 00 cuBLAS SGEMM: the reference                     */ \
  STEP(naive_variant)                 /* 01 one thread an output, all from global memory    */ \
  STEP(tiled_static_variant_16)       /* 02 shared-memory tiles, static arrays              */ \
  STEP(tiled_static_variant_32)       /*    the same with 32 x 32 tiles                     */ \
  STEP(tiled_dynamic_const_variant)   /* 03 dynamic shared memory, tile size compiled in    */ \
  STEP(tiled_dynamic_runtime_variant) /*    tile size known only at run time                */ \
  STEP(bank_conflict_variant)         /* 04 a column-first tile: bank conflicts             */ \
  STEP(bank_conflict_padded_variant)  /*    the same padded to 17 words a row               */ \
  STEP(thread_tile_1d_variant)        /* 05 8 outputs a thread, down a column               */ \
  STEP(thread_tile_2d_variant)        /* 06 an 8 x 8 outer product a thread                 */ \
  STEP(vectorized_variant)            /* 07 16-byte accesses, A transposed in shared memory */ \
  STEP(conflict_free_variant)         /* 08 A's rows padded: no fragment conflicts          */ \
  STEP(warp_tile_variant)             /* 09 warp tiles fed by cp.async                      */ \
  STEP(pipelined_variant)             /* 10 a 3-stage copy pipeline                         */ \
  STEP(rasterized_variant)            /* 11 blocks ordered for L2 reuse                     */ \
  STEP(autotuned_variant)             /* 12 tiles and split-K chosen per shape              */ \
  STEP(skinny_variant)                /* 13 few rows or columns: the large operand streamed */ \
  STEP(auto_variant)                  /* 14 the default call: a kernel by predicted time    */

namespace smemlab::matmul::detail {

#define SMEMLAB_DECLARE_STEP(make) GemmVariant make();
SMEMLAB_MATMUL_STEPS(SMEMLAB_DECLARE_STEP)
#undef SMEMLAB_DECLARE_STEP

}  // namespace smemlab::matmul::detail
