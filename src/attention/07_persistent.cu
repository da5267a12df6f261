// 07 — persistent blocks that take Q tiles as they come free, heaviest first within a head.
// Changed from 05: the grid is one block an SM, and each block works through Q tiles (a batch, a
// head and 128 rows each) in turn: its first is its block index, each next one the next of a
// counter in the workspace (set to 0 at the start of the call), so that a block that finishes
// early takes more. The producer takes the next item as soon as both consumers are done with
// the current Q (an mbarrier that counts their arrivals), hands its index to them in shared
// memory, and loads its Q, K and V through the same ring of stages, so they land while the
// consumers finish the current item and store its O. The items run head by head, as 05's grid
// does, so that the blocks at work at a time share K and V in L2; within a head from the last Q
// tile to the first, the order of their work under a causal mask (a head's last tile sees every
// key, its first one tile of them), so that short items fill the end.
// Should buy: a Q tile's start (Q's copy and the ring's first fill, one to two microseconds) and
// its end (O's store) overlap the neighbouring items' products instead of leaving the SM idle.
// That matters where an item has few keys: at N = 512 (4 tiles of 128 keys), about 15%; and
// with a causal mask, no ragged last wave.
#include "attention/hopper_attention.cuh"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1)
    persistent_kernel(const __grid_constant__ Maps maps, Problem<T> p, int* next_item) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ volatile int current_item;  // the producer's hand-over to the consumers
  Consumer<D> c;
  c.smem = aligned_smem(smem_raw);
  c.bars = barriers_at<D>(c.smem);
  if (threadIdx.x == 0) init_barriers(c.bars);
  __syncthreads();
  const int items = p.batch * p.heads * p.q_tiles;  // at most 2^31 - 1 (launch_hopper)
  // Item i: Q tile q_tiles - 1 - i % q_tiles of the (batch, head) pair i / q_tiles.
  const auto start = [&](int item) {
    const int pair = item / p.q_tiles;
    c.at = {pair / p.heads, pair % p.heads, p.q_tiles - 1 - item % p.q_tiles};
    c.keys = key_range(p, c.at.tile * kRows, kRows);
    c.tiles = (c.keys.end + kKeys<D> - 1) / kKeys<D>;
  };
  int ring = 0;                  // K/V tiles the ring of stages has carried
  unsigned phase = 0;            // of Q's barriers
  if (threadIdx.x / 128 == 0) {  // the producer warpgroup
    hopper::release_registers<24>();
    if (threadIdx.x != 0) return;
    int item = static_cast<int>(blockIdx.x);
    for (;;) {
      current_item = item;  // published by the arrival on Q's barrier
      if (item >= items) {
        hopper::arrive(c.bars.q_full);  // no more: the consumers wake and stop
        return;
      }
      // The next item is taken now, so that the counter's round trip is not waited for later.
      const int next = static_cast<int>(gridDim.x) + atomicAdd(next_item, 1);
      start(item);
      produce<T, D>(maps, p, c.at, c.tiles, c.smem, c.bars, ring);
      ring += c.tiles;
      hopper::wait(c.bars.q_empty, phase);  // both consumers are done with this Q
      phase ^= 1;
      item = next;
    }
  }
  hopper::claim_registers<240>();
  const int consumer = static_cast<int>(threadIdx.x) / 128 - 1;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = (static_cast<int>(threadIdx.x) / 32) % 4;
  c.q_tile = c.smem + consumer * 64 * 128;
  for (;;) {
    hopper::wait(c.bars.q_full, phase);
    phase ^= 1;
    const int item = current_item;
    if (item >= items) return;
    start(item);
    c.rows = {.top = c.at.tile * kRows + 64 * consumer + 16 * warp + lane / 4, .t = lane % 4};
    float o[D / 2] = {};
    overlapped_tiles<T, D>(c, p, o, ring);
    if (threadIdx.x % 128 == 0) hopper::arrive(c.bars.q_empty);  // the next item may come
    ring += c.tiles;
    c.rows.store(p, c.at, reinterpret_cast<float(&)[D / 8][4]>(o));
  }
}

// The counter of items handed out after each block's first.
std::size_t workspace_bytes(const Args& /*args*/) { return 16; }

void launch(const Args& a, const LaunchContext& ctx) {
  auto* const next_item = static_cast<int*>(a.workspace);
  SMEMLAB_CUDA_CHECK(cudaMemsetAsync(next_item, 0, sizeof(int), ctx.stream));
  with_type_and_head_dim(a, [&]<class T, int D>() {
    launch_hopper<T, D>(persistent_kernel<T, D>, a, ctx.stream, true, next_item);
  });
}

}  // namespace

AttentionVariant persistent_variant() {
  return {
      {.family = "attention",
       .name = "persistent",
       .description = "05 in one block an SM that works through Q tiles, heaviest first",
       .technique = "a persistent, causal-aware schedule: a tile's start and end under its neighbours' work",
       .smem = SmemKind::dynamic_alloc,
       .why_no_model = "not modelled yet: its wavefronts are not derived",
       .unavailable = tensor_matmul::detail::why_no_wgmma},
      {workspace_bytes, launch}};
}

}  // namespace smemlab::attention::detail
