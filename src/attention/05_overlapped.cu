// 05 — the softmax of one tile beside the products of its neighbours (intra-warpgroup overlap).
// Changed from 04: a consumer issues S = Q K^T for the next tile and O += P V for this one as two
// wgmma batches, waits for the S batch only (wgmma.wait_group 1), and computes the next tile's
// softmax while P V still runs; it waits for P V just before it rescales O and writes the new
// P. K and V are freed apart (K once its S is done), so the next K can land while V is still read.
// Should buy: the tensor cores stay busy during the exponentials, which 04 left to the other
// consumer warpgroup alone: 10-20% at head dim 128, more at 64, where the products are shorter.
#include "attention/hopper_attention.cuh"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    overlap_kernel(const __grid_constant__ Maps maps, Problem<T> p) {
  using L = Smem<D>;
  extern __shared__ unsigned char smem_raw[];
  Consumer<D> c;
  if (!start_block<T, D>(maps, p, smem_raw, c)) return;
  float o[D / 2] = {};
  auto& acc = reinterpret_cast<float(&)[D / 8][4]>(o);
  if (c.tiles > 0) {
    std::uint32_t a[kKeys<D> / 16][4];  // P's fragments of the tile whose P V is next
    {                                   // the first tile: S, its softmax, P
      float s_flat[kKeys<D> / 2] = {};
      hopper::wait(&c.bars.k_full[0], 0);
      issue_scores<T, D>(s_flat, c.q_tile, c.smem + L::kK);
      hopper::wait_batches<0>();
      hopper::keep_in_registers(s_flat);
      if (threadIdx.x % 128 == 0) hopper::arrive(&c.bars.k_empty[0]);
      auto& s = reinterpret_cast<float(&)[kKeys<D> / 8][4]>(s_flat);
      if (c.masked(0)) c.rows.mask(s, p, 0);
      c.rows.softmax(s, p.scale_log2);  // O is still 0: nothing to rescale
#pragma unroll
      for (int kk = 0; kk < kKeys<D> / 16; ++kk) p_fragment<T, kKeys<D>>(a[kk], s, kk);
    }
    for (int tile = 1; tile < c.tiles; ++tile) {
      const int stage = tile % kStages;
      const int previous = (tile - 1) % kStages;
      float s_flat[kKeys<D> / 2] = {};
      hopper::wait(&c.bars.k_full[stage], (tile / kStages) & 1);
      issue_scores<T, D>(s_flat, c.q_tile, c.smem + L::kK + stage * L::kTileBytes);
      hopper::wait(&c.bars.v_full[previous], ((tile - 1) / kStages) & 1);
      issue_output<T, D>(o, a, c.smem + L::kV + previous * L::kTileBytes);
      hopper::wait_batches<1>();  // S is done; P V of the previous tile may still run
      hopper::keep_in_registers(s_flat);
      if (threadIdx.x % 128 == 0) hopper::arrive(&c.bars.k_empty[stage]);
      auto& s = reinterpret_cast<float(&)[kKeys<D> / 8][4]>(s_flat);
      if (c.masked(tile)) c.rows.mask(s, p, tile * kKeys<D>);
      const auto r = c.rows.softmax(s, p.scale_log2);
      hopper::wait_batches<0>();
      hopper::keep_in_registers(o);
      if (threadIdx.x % 128 == 0) hopper::arrive(&c.bars.v_empty[previous]);
      c.rows.rescale(acc, r);
#pragma unroll
      for (int kk = 0; kk < kKeys<D> / 16; ++kk) p_fragment<T, kKeys<D>>(a[kk], s, kk);
    }
    const int last = (c.tiles - 1) % kStages;
    hopper::wait(&c.bars.v_full[last], ((c.tiles - 1) / kStages) & 1);
    issue_output<T, D>(o, a, c.smem + L::kV + last * L::kTileBytes);
    hopper::wait_batches<0>();
    hopper::keep_in_registers(o);
  }
  c.rows.store(p, c.at, acc);
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(a,
                         [&]<class T, int D>() { launch_hopper<T, D>(overlap_kernel<T, D>, a, ctx.stream); });
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
