#pragma once
#include "smemlab/scan.hpp"

// The scan steps in teaching order, the reference first: each line names the function that
// builds a variant's record in its own file (src/scan/NN_*.cu). This list is the family's table;
// a new variant is its file and one line here.
#define SMEMLAB_SCAN_STEPS(STEP)                                                         \
  STEP(cub_variant)                /* 00 cub::DeviceScan: the reference               */ \
  STEP(hillis_steele_variant)      /* 01 the naive scan: log n rounds over every word */ \
  STEP(work_efficient_variant)     /* 02 up-sweep, down-sweep: strided, conflicting   */ \
  STEP(conflict_free_variant)      /* 03 the same with the conflict-free offset       */ \
  STEP(warp_shuffle_variant)       /* 04 items in registers, warps by shuffles        */ \
  STEP(reduce_then_scan_variant)   /* 05 tile sums first: n read twice, written once  */ \
  STEP(decoupled_lookback_variant) /* 06 one pass: each tile looks back for its prefix */

namespace smemlab::scan::detail {

#define SMEMLAB_DECLARE_STEP(make) ScanVariant make();
SMEMLAB_SCAN_STEPS(SMEMLAB_DECLARE_STEP)
#undef SMEMLAB_DECLARE_STEP

}  // namespace smemlab::scan::detail
