// 03 — the conflict-free offset. Changed from 02: word i of the tree lives at
// i + (i >> 5) + (i >> 10), one padding word after every 32 and one more after every 1,024, so
// that the strided indices of each round land in different banks. This is the offset GPU Gems 3
// (chapter 39) means for 32 banks; the macro as printed there parses otherwise and adds nothing
// (docs/guide/banks.md). Should buy: the up-sweep's and down-sweep's wavefronts down to about
// one per warp access, for 33 words of shared memory.
#include "scan/models.hpp"
#include "scan/tree_kernel.cuh"
#include "scan/variants.hpp"

namespace smemlab::scan::detail {

ScanVariant conflict_free_variant() {
  return {{.family = "scan",
           .name = "conflict_free",
           .description = "the same tree with the conflict-free offset: i + (i >> 5) + (i >> 10)",
           .technique = "padding: strided tree indices spread over the 32 banks",
           .smem = SmemKind::static_alloc,
           .model = models::conflict_free},
          both_types<Tree<true>::Launch>()};
}

}  // namespace smemlab::scan::detail
