// 02 — the work-efficient scan (Blelloch). Changed from 01: each block's 1,024 elements (two a
// thread) go up a balanced tree and back down, 2 x 1,023 additions where the naive scan needs
// 9 x 512 for half as many elements. Should buy: fewer additions and half the blocks; costs bank
// conflicts: at stride s the lanes of a warp touch words 2s apart, a 2s-way conflict that peaks
// at 32-way for s = 16 (and falls with the active threads after it). The tree's kernel:
// tree_kernel.cuh.
#include "scan/models.hpp"
#include "scan/tree_kernel.cuh"
#include "scan/variants.hpp"

namespace smemlab::scan::detail {

ScanVariant work_efficient_variant() {
  return {{.family = "scan",
           .name = "work_efficient",
           .description = "up-sweep and down-sweep over 1,024 words a block, strided: bank conflicts",
           .technique = "Blelloch's tree: O(n) additions, at power-of-two strides",
           .smem = SmemKind::static_alloc,
           .model = models::work_efficient},
          both_types<Tree<false>::Launch>()};
}

}  // namespace smemlab::scan::detail
