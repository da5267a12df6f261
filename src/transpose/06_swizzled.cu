// 06 — the unpadded tile with an XOR swizzle. Changed from 05: no padding; element (r, c) is
// stored at column c XOR r of row r. A row write still spans all 32 banks (XOR with a constant
// permutes them), and a column read (fixed c, r = lane) lands on banks c XOR lane: all distinct.
// Same conflict-freedom as padding, no wasted words, and rows stay 16-byte aligned (which
// matters once accesses get wider).
#include "transpose/tile_kernel.cuh"
#include "transpose/models.hpp"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {

TransposeVariant swizzled_variant() {
  return {{.family = "transpose",
           .name = "swizzled",
           .description = "unpadded 32x32 tile, column index XOR row: conflict-free",
           .technique = "XOR swizzle: a bank permutation per row instead of padding",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::tile(s, t, models::Layout::swizzled); }},
          both_types<TileTranspose<SwizzledLayout>::For>()};
}

}  // namespace smemlab::transpose::detail
