#pragma once
// Access models of the reduction steps that use shared memory for their tree
// (smemlab/access_model.hpp). Counted for the first pass: later passes over the block sums
// are hundreds of times smaller.
#include "smemlab/access_model.hpp"

namespace smemlab::reduce::models {

// The tree of the tutorial “Shared Memory” (04, 05): 128 threads halve their values in shared
// memory.
AccessModel tutorial_tree(const Shape& s, DType type, bool dynamic);

// The 256-thread trees of the classic steps (06-10).
enum class Tree { divergent, strided, sequential, first_add, warp_shuffle };
AccessModel classic_tree(const Shape& s, DType type, Tree tree);

}  // namespace smemlab::reduce::models
