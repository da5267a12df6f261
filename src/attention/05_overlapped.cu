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
  unsigned char* const smem = aligned_smem(smem_raw);
  const Barriers bars = barriers_at<D>(smem);
  const BlockRows at = block_rows(p);
  const int first_row = at.tile * kRows;
  const KeyRange keys = key_range(p, first_row, kRows);
  const int tiles = (keys.end + kKeys<D> - 1) / kKeys<D>;
  if (threadIdx.x == 0) init_barriers(bars);
  __syncthreads();

  if (threadIdx.x / 128 == 0) {  // the producer warpgroup
    hopper::release_registers<24>();
    if (threadIdx.x == 0) produce<T, D>(maps, p, at, tiles, smem, bars);
    return;
  }

  hopper::claim_registers<240>();
  const int consumer = static_cast<int>(threadIdx.x) / 128 - 1;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = (static_cast<int>(threadIdx.x) / 32) % 4;
  WarpRows<kKeys<D>, D> rows{.top = first_row + 64 * consumer + 16 * warp + lane / 4, .t = lane % 4};
  const unsigned char* const q_tile = smem + consumer * 64 * 128;  // this consumer's 64 rows of each block
  float o[D / 2] = {};
  auto& acc = reinterpret_cast<float(&)[D / 8][4]>(o);
  hopper::wait(bars.q_full, 0);
  if (tiles > 0) {
    std::uint32_t a[kKeys<D> / 16][4];  // P's fragments of the tile whose P V is next
    const auto masked = [&](int tile) { return (tile + 1) * kKeys<D> > keys.unmasked_end; };
    {  // the first tile: S, its softmax, P
      float s_flat[kKeys<D> / 2] = {};
      hopper::wait(&bars.k_full[0], 0);
      issue_scores<T, D>(s_flat, q_tile, smem + L::kK);
      hopper::wait_batches<0>();
      hopper::keep_in_registers(s_flat);
      if (threadIdx.x % 128 == 0) hopper::arrive(&bars.k_empty[0]);
      auto& s = reinterpret_cast<float(&)[kKeys<D> / 8][4]>(s_flat);
      if (masked(0)) rows.mask(s, p, 0);
      rows.softmax(s, p.scale_log2);  // O is still 0: nothing to rescale
#pragma unroll
      for (int kk = 0; kk < kKeys<D> / 16; ++kk) p_fragment<T, kKeys<D>>(a[kk], s, kk);
    }
    for (int tile = 1; tile < tiles; ++tile) {
      const int stage = tile % kStages;
      const int previous = (tile - 1) % kStages;
      float s_flat[kKeys<D> / 2] = {};
      hopper::wait(&bars.k_full[stage], (tile / kStages) & 1);
      issue_scores<T, D>(s_flat, q_tile, smem + L::kK + stage * L::kTileBytes);
      hopper::wait(&bars.v_full[previous], ((tile - 1) / kStages) & 1);
      issue_output<T, D>(o, a, smem + L::kV + previous * L::kTileBytes);
      hopper::wait_batches<1>();  // S is done; P V of the previous tile may still run
      hopper::keep_in_registers(s_flat);
      if (threadIdx.x % 128 == 0) hopper::arrive(&bars.k_empty[stage]);
      auto& s = reinterpret_cast<float(&)[kKeys<D> / 8][4]>(s_flat);
      if (masked(tile)) rows.mask(s, p, tile * kKeys<D>);
      const auto r = rows.softmax(s, p.scale_log2);
      hopper::wait_batches<0>();
      hopper::keep_in_registers(o);
      if (threadIdx.x % 128 == 0) hopper::arrive(&bars.v_empty[previous]);
      rows.rescale(acc, r);
#pragma unroll
      for (int kk = 0; kk < kKeys<D> / 16; ++kk) p_fragment<T, kKeys<D>>(a[kk], s, kk);
    }
    const int last = (tiles - 1) % kStages;
    hopper::wait(&bars.v_full[last], ((tiles - 1) / kStages) & 1);
    issue_output<T, D>(o, a, smem + L::kV + last * L::kTileBytes);
    hopper::wait_batches<0>();
    hopper::keep_in_registers(o);
  }
  rows.store(p, at, acc);
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_element_type(a.type, [&]<class T>(T) {
    if (a.shape.head_dim == 64) launch_hopper<T, 64>(overlap_kernel<T, 64>, a, ctx.stream);
    if (a.shape.head_dim == 128) launch_hopper<T, 128>(overlap_kernel<T, 128>, a, ctx.stream);
    if (a.shape.head_dim == 256) launch_hopper<T, 256>(overlap_kernel<T, 256>, a, ctx.stream);
  });
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
          {[](const Args&) { return std::size_t{0}; }, launch}};
}

}  // namespace smemlab::attention::detail
