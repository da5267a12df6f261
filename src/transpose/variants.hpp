#pragma once
#include "smemlab/transpose.hpp"

// The transpose steps in teaching order, the reference first: each line names the function
// that builds a variant's record in its own file (src/transpose/NN_*.cu). This list is the family's
// table; a new variant is its file and one line here.
#define SMEMLAB_TRANSPOSE_STEPS(STEP)                                                   \
  STEP(cublas_variant)    /* 00 cublasSgeam / cublasDgeam: the reference             */ \
  STEP(copy_variant)      /* 01 a plain copy: the ceiling                            */ \
  STEP(naive_row_variant) /* 02 coalesced reads, strided writes                      */ \
  STEP(naive_col_variant) /* 03 strided reads, coalesced writes                      */ \
  STEP(smem_tile_variant) /* 04 a shared tile: coalesced both ways, 32-way conflicts */ \
  STEP(padded_variant)    /* 05 the tile padded to 33 columns                        */ \
  STEP(swizzled_variant)  /* 06 the tile XOR-swizzled                                */ \
  STEP(tuned_variant)     /* 07 16-byte accesses, tiles down the columns             */

namespace smemlab::transpose::detail {

#define SMEMLAB_DECLARE_STEP(make) TransposeVariant make();
SMEMLAB_TRANSPOSE_STEPS(SMEMLAB_DECLARE_STEP)
#undef SMEMLAB_DECLARE_STEP

// The two entry points of a variant written as a kernel template over the element type.
template <template <class> class Launcher>
TransposeOps both_types(bool copies = false) {
  return {&Launcher<float>::launch, &Launcher<double>::launch, copies};
}

}  // namespace smemlab::transpose::detail
