#pragma once
// Access models of the transpose steps that stage tiles in shared memory
// (smemlab/access_model.hpp).
#include "smemlab/access_model.hpp"

namespace smemlab::transpose::models {

// The 32 x 32 tile of the tutorial “Shared Memory” (04-06): plain, padded to 33 columns, or
// XOR-swizzled.
enum class Layout { plain, padded, swizzled };
AccessModel tile(const Shape& s, DType type, Layout layout);
// 07: the 16-byte path where the alignment allows, else 32 x 32 swizzled tiles.
AccessModel tuned(const Shape& s, DType type);

}  // namespace smemlab::transpose::models
