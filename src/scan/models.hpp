#pragma once
// Access models of the scan steps that keep every element of a tile in shared memory
// (smemlab/access_model.hpp). Counted for the first pass over the tiles: the passes over the
// tiles' totals are 512 or 1,024 times smaller.
#include "smemlab/access_model.hpp"

namespace smemlab::scan::models {

AccessModel hillis_steele(const Shape& s, DType type);
AccessModel work_efficient(const Shape& s, DType type);
AccessModel conflict_free(const Shape& s, DType type);

}  // namespace smemlab::scan::models
