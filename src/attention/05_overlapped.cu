// 05 — the softmax of one tile beside the products of its neighbours (intra-warpgroup overlap).
// Changed from 04: a consumer issues S = Q K^T for the next tile and O += P V for this one as two
// wgmma batches, waits for the S batch only (wgmma.wait_group 1), and computes the next tile's
// softmax while P V still runs; it waits for P V just before it rescales O and writes the new
// P. K and V are freed apart (K once its S is done), so the next K can land while V is still read.
// Should buy: the tensor cores stay busy during the exponentials, which 04 left to the other
// consumer warpgroup alone: 10-20% at head dim 128, more at 64, where the products are shorter.
// The loop is overlapped_tiles in hopper_attention.cuh, which step 07 runs at head dims 128 and 256.
#include "attention/hopper_attention.cuh"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

template <class T, int D>
__global__ void __launch_bounds__(Tiling<D>::kThreads, 1)
    overlap_kernel(const __grid_constant__ Maps maps, Problem<T> p) {
  extern __shared__ unsigned char smem_raw[];
  Consumer<Tiling<D>> c;
  if (!start_block(maps, p, smem_raw, c)) return;
  float o[D / 2] = {};
  overlapped_tiles(c, p, o);  // hopper_attention.cuh
  c.rows.store(p, c.at, reinterpret_cast<float(&)[D / 8][4]>(o));
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(a,
                         [&]<class T, int D>() { launch_hopper<T, Tiling<D>>(overlap_kernel<T, D>, a, ctx.stream); });
}
}  // namespace

AttentionVariant overlapped_variant() {
  return {{.family = "attention",
           .name = "overlapped",
           .description = "04 with the next tile's S and this tile's P V in flight during the softmax",
           .technique = "intra-warpgroup overlap: the exponentials beside the tensor cores",
           .smem = SmemKind::dynamic_alloc,
           .why_no_model = "not modelled yet: its wavefronts are not derived",
           .unavailable = tensor_matmul::detail::why_no_wgmma},
          {no_workspace, launch}};
}

}  // namespace smemlab::attention::detail
