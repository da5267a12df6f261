#pragma once
#include "smemlab/histogram.hpp"

// The histogram steps in teaching order, the reference first: each line names the function that
// builds a variant's record in its own file (src/histogram/NN_*.cu). This list is the family's
// table; a new variant is its file and one line here.
#define SMEMLAB_HISTOGRAM_STEPS(STEP)                                                      \
  STEP(cub_variant)            /* 00 cub::DeviceHistogram::HistogramEven: the reference */ \
  STEP(global_atomics_variant) /* 01 one global atomic a sample                      */    \
  STEP(shared_atomics_variant) /* 02 a block's histogram in shared memory            */    \
  STEP(sub_histograms_variant) /* 03 a copy per warp: less contention                */    \
  STEP(cluster_variant)        /* 04 one histogram across a cluster's shared memory  */

namespace smemlab::histogram::detail {

#define SMEMLAB_DECLARE_STEP(make) HistogramVariant make();
SMEMLAB_HISTOGRAM_STEPS(SMEMLAB_DECLARE_STEP)
#undef SMEMLAB_DECLARE_STEP

}  // namespace smemlab::histogram::detail
