// 05 — the tile padded to 32 x 33 (the fix in the tutorial “Shared Memory”). Changed from 04: one
// unused word per row, so walking down a column moves one bank per row: the 32 lanes of a column
// read hit 32 banks. Costs 3% more shared memory; should buy back everything the conflicts cost.
#include "transpose/tile_kernel.cuh"
#include "transpose/models.hpp"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {

namespace {
constexpr const Tutorial* kTutorials[] = {&tutorials::kSharedMemory};
}  // namespace

TransposeVariant padded_variant() {
  return {{.family = "transpose",
           .name = "padded",
           .description = "the same tile padded to 32x33 floats: conflict-free column reads",
           .technique = "padding: a 33-word row stride gives each lane its own bank",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::tile(s, t, models::Layout::padded); }},
          both_types<TileTranspose<PaddedLayout>::For>()};
}

}  // namespace smemlab::transpose::detail
