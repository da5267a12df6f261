#pragma once
// Which lanes of a warp share a word: what the bank map's JSON marks as broadcasts.
#include <vector>

#include "smemlab/banks.hpp"

namespace smemlab::banks::detail {

// A cell of a phase's map whose word several lanes ask for: served once, to all of them.
struct Broadcast {
  int phase;      // index into WarpResult::phases
  int wavefront;  // row of that phase's grid
  int bank;
  std::vector<int> lanes;  // every lane asking for the word; the grid shows the first
};

// The broadcasts of `warp`, a result of analyze(access), phase by phase. Empty for cp.async.cg,
// whose lanes writing the same 16 bytes are counted once rather than served together, and for
// atom.cluster, which serves each lane apart.
[[nodiscard]] std::vector<Broadcast> broadcasts(const Access& access, const WarpResult& warp);

}  // namespace smemlab::banks::detail
