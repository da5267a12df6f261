// 04 — shared-memory tile, the transpose1 of the tutorial “Shared Memory”. Changed from 02/03: both
// global accesses are coalesced; the transposition happens in shared memory. The catch: reading a
// column of the row-major tile puts all 32 lanes in the same bank (addresses 32 words apart), a
// 32-way conflict on every read (16-way per half-warp for double).
#include "transpose/tile_kernel.cuh"
#include "transpose/models.hpp"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {

namespace {
constexpr const Tutorial* kTutorials[] = {&tutorials::kSharedMemory};
}  // namespace

TransposeVariant smem_tile_variant() {
  return {{.family = "transpose",
           .name = "smem_tile",
           .description = "32x32 shared tile: coalesced both ways, 32-way conflicts",
           .technique = "shared-memory transposition; a column read hits one bank 32 times",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::tile(s, t, models::Layout::plain); }},
          both_types<TileTranspose<PlainLayout>::For>()};
}

}  // namespace smemlab::transpose::detail
