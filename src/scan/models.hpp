#pragma once
// Access models of the scan steps (smemlab/access_model.hpp). 01-04: counted for the first pass
// over the tiles; the passes over the tiles' totals are 512 to 4,096 times smaller. 05: the pass
// that scans and writes.
#include "smemlab/access_model.hpp"

namespace smemlab::scan::models {

AccessModel hillis_steele(const Shape& s, DType type);
AccessModel work_efficient(const Shape& s, DType type);
AccessModel conflict_free(const Shape& s, DType type);
AccessModel warp_shuffle(const Shape& s, DType type);
AccessModel reduce_then_scan(const Shape& s, DType type);

}  // namespace smemlab::scan::models
