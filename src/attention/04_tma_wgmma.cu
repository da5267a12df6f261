// 04 — Hopper: TMA copies, wgmma for both products, a producer warpgroup. Changed from 03: a
// block is three warpgroups (128 threads each). One producer thread issues TMA copies: Q's tile
// of 128 rows once, then each K and V tile into a ring of two stages, each stage completing on
// an mbarrier that counts its bytes; the copy engine writes the 128-byte swizzle itself and
// reads Q, K and V through rank-4 tensor maps ([batch, heads, seq, head_dim] with the caller's
// strides), so rows past a sequence's end arrive as zeros. Two consumer warpgroups own 64 rows
// each: S = Q K^T is one wgmma m64n128 per 16 columns of head_dim (128 keys a tile; 64 at head
// dim 256), reading Q and K straight from shared memory; the softmax runs on S's accumulators as
// in 02 and 03 (their layout is mma.sync's, a warp per 16 rows); O += P V is wgmma with P from
// registers and V from shared memory. A consumer frees a stage by arriving on its mbarriers. The
// producer gives its registers back (setmaxnreg), so each consumer thread has 240. Should buy:
// the products at wgmma's rate, which mma.sync cannot reach on Hopper, no fragment loads for K
// and V, no address arithmetic for copies in the consumers, and one warpgroup's softmax beside
// the other's products: 400 TFLOP/s or more at head dim 128.
// The loop is tiles_in_turn in hopper_attention.cuh, which step 07 runs at head dim 64.
#include "attention/hopper_attention.cuh"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

template <class T, int D>
__global__ void __launch_bounds__(Tiling<D>::kThreads, 1)
    tma_wgmma_kernel(const __grid_constant__ Maps maps, Problem<T> p) {
  extern __shared__ unsigned char smem_raw[];
  Consumer<Tiling<D>> c;
  if (!start_block(maps, p, smem_raw, c)) return;
  float o[D / 2] = {};
  tiles_in_turn(c, p, o);  // hopper_attention.cuh
  c.rows.store(p, c.at, reinterpret_cast<float(&)[D / 8][4]>(o));
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(
      a, [&]<class T, int D>() { launch_hopper<T, Tiling<D>>(tma_wgmma_kernel<T, D>, a, ctx.stream); });
}
}  // namespace

AttentionVariant tma_wgmma_variant() {
  return {{.family = "attention",
           .name = "tma_wgmma",
           .description = "a TMA producer warpgroup and two consumers; wgmma for Q K^T and for P V",
           .technique = "Hopper: tensor maps of rank 4, mbarrier stages, wgmma with P from registers",
           .smem = SmemKind::dynamic_alloc,
           .why_no_model = "not modelled yet: its wavefronts are not derived",
           .unavailable = tensor_matmul::detail::why_no_wgmma},
          {no_workspace, launch}};
}

}  // namespace smemlab::attention::detail
