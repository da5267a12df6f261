#pragma once
#include "smemlab/attention.hpp"

// The attention steps in teaching order, the reference first: each line names the function that
// builds a variant's record in its own file (src/attention/NN_*.cu). This list is the family's
// table; a new variant is its file and one line here.
#define SMEMLAB_ATTENTION_STEPS(STEP)                                                                 \
  STEP(unfused_variant)           /* 00 S = QK^T by cuBLAS, a softmax kernel, O = PV: the reference */ \
  STEP(fused_tile_variant)        /* 01 one block a Q tile, S and P in shared memory                */ \
  STEP(split_rows_variant)        /* 02 warps split Q's rows: S and P stay in registers             */ \
  STEP(swizzled_pipeline_variant) /* 03 swizzled tiles, ldmatrix, K and V copies in flight          */ \
  STEP(tma_wgmma_variant)         /* 04 Hopper: TMA producer, wgmma for both products               */ \
  STEP(overlapped_variant)        /* 05 the softmax beside the next S and this P V                  */ \
  STEP(split_kv_variant)          /* 06 a head group packed, keys split over blocks: decoding       */ \
  STEP(persistent_variant)        /* 07 Hopper: one block an SM through Q tiles, heaviest first     */

namespace smemlab::attention::detail {

#define SMEMLAB_DECLARE_STEP(make) AttentionVariant make();
SMEMLAB_ATTENTION_STEPS(SMEMLAB_DECLARE_STEP)
#undef SMEMLAB_DECLARE_STEP

}  // namespace smemlab::attention::detail
