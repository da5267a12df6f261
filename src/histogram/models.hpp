#pragma once
// Access models of the histogram steps that count in shared memory (smemlab/access_model.hpp),
// for the benchmark's first input of the type: uniformly random bytes into 256 bins, or floats
// uniform in the range into 1,024 bins. The bins a warp's lanes add to depend on the data, so
// the atomics are written with rand() and counted as the mean over draws; the atomics of a
// grid-stride loop are counted for the whole launch, the clearing and summing per block.
#include "smemlab/access_model.hpp"

namespace smemlab::histogram::models {

AccessModel shared_atomics(const Shape& s, DType type);
AccessModel sub_histograms(const Shape& s, DType type);
AccessModel cluster(const Shape& s, DType type);

}  // namespace smemlab::histogram::models
