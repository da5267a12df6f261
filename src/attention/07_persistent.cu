// 07 — persistent blocks that take Q tiles as they come free, heaviest first within a head.
// Changed from 05 (from 04 at head dim 64 with two consumers, where 04 is the faster): the grid
// is one block an SM, and each block works through Q tiles (a batch, a head and 128 rows each;
// 192 with three consumers) in turn: its first is its block index, each next one the next of a
// counter in the workspace (set to 0 within the call). A block claims its next item as it starts
// the current one, so every block's second item is claimed at the start in whatever order the
// claims land; from the third on, a block that finishes early claims earlier and so takes more.
// The producer loads the next item's Q as soon as every consumer's last S is done (an mbarrier
// that counts their arrivals), then the first stages of its K and V: they land while the
// consumers finish the current item and store its O. Then it hands the item's index over in
// shared memory at a named barrier. Items run head by head, as 05's grid does, so that the
// blocks at work at a time share K and V in L2; within a head from the last Q tile to the first,
// the order of their work under a causal mask (a head's last tile sees every key, its first the
// fewest), so that short items fill the end. At head dim 64 a block may take Q tiles of 192 rows
// with three consumers, or else K/V tiles of 256 keys without a mask (a tile model,
// src/attention/tile_model.cpp, decides when; launch() says why).
// Should buy: a Q tile's start (Q's copy and the ring's first fill, one to two microseconds) and
// its end (O's store) overlap the neighbouring items' products instead of leaving the SM idle.
// That matters where an item has few keys: at N = 512 (4 tiles of 128 keys), about 15%; and
// with a causal mask, no ragged last wave.
#include "attention/hopper_attention.cuh"
#include "attention/tile_model.hpp"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

// The hand-over of an item's index: the producer thread writes it to one of two slots, then it
// and the consumer warpgroups meet at a named barrier (0 is __syncthreads'); the producer's warp
// counts as a whole warp. Two slots, so that the producer can write the next index before the
// consumers have read the previous one: the slot it writes was read before their last meeting.
constexpr int kHandOver = 1;

template <class T, class Tile>
__global__ void __launch_bounds__(Tile::kThreads, 1)
    persistent_kernel(const __grid_constant__ Maps maps, Problem<T> p, int* next_item) {
  constexpr int D = Tile::kHeadDim;
  constexpr int kHandOverThreads = 32 + 128 * Tile::kConsumers;
  extern __shared__ unsigned char smem_raw[];
  __shared__ int handed_items[2];
  Consumer<Tile> c;
  c.begin(smem_raw);
  const int items = p.batch * p.heads * p.q_tiles;  // at most 2^31 - 1 (launch_hopper)
  // Item i: Q tile q_tiles - 1 - i % q_tiles of the (batch, head) pair i / q_tiles.
  const auto start = [&](int item) {
    const int pair = item / p.q_tiles;
    c.take(p, {pair / p.heads, pair % p.heads, p.q_tiles - 1 - item % p.q_tiles});
  };
  int ring = 0;        // K/V tiles the ring of stages has carried
  unsigned phase = 0;  // of Q's barriers
  int handed = 0;      // hand-overs so far
  if (threadIdx.x / 128 == 0) {  // the producer warpgroup
    // What the consumers' budget leaves of the registers the launch gives (setmaxnreg.inc waits
    // until the producer's released registers cover it).
    hopper::release_registers<Tile::kProducerRegisters>();
    if (threadIdx.x != 0) return;
    const auto hand_over = [&](int item) {
      handed_items[handed++ % 2] = item;
      hopper::sync_named_divergent(kHandOver, kHandOverThreads);
    };
    int item = static_cast<int>(blockIdx.x);
    while (item < items) {
      // Taken before the copies, so that the counter's round trip is not waited for later;
      // capped at `items`, so that the sum cannot wrap.
      const int next =
          static_cast<int>(min(static_cast<long long>(items), gridDim.x + 1LL * atomicAdd(next_item, 1)));
      start(item);
      if (c.tiles == 0) {
        // Rows that see no key: O is 0 and nothing is copied. Q's barriers are left alone on
        // both sides, so that no consumer warp can be left waiting on a phase gone past.
        hand_over(item);
      } else {
        // Q and the first stages are issued before the hand-over, which waits for the consumers
        // to finish the last item: they land meanwhile.
        produce<T, Tile>(maps, p, c.at, c.tiles, c.smem, c.bars, ring, [&] { hand_over(item); });
        ring += c.tiles;
        hopper::wait(c.bars.q_empty, phase);  // every consumer's last S is done: Q's buffer is free
        phase ^= 1;
      }
      item = next;
    }
    hand_over(items);  // no more
    return;
  }
  hopper::claim_registers<Tile::kConsumerRegisters>();
  for (;;) {
    hopper::sync_named_divergent(kHandOver, kHandOverThreads);
    const int item = handed_items[handed++ % 2];
    if (item >= items) return;
    start(item);
    if (c.tiles > 0) {  // as the producer: no Q without keys
      hopper::wait(c.bars.q_full, phase);
      phase ^= 1;
    }
    c.own_rows();
    float o[D / 2] = {};
    if constexpr (D == 64 && Tile::kConsumers == 2) {
      tiles_in_turn<true>(c, p, o, ring);  // 04's loop: there 05's overlap is slower
    } else {
      overlapped_tiles<true>(c, p, o, ring);
    }
    ring += c.tiles;
    c.rows.store(p, c.at, reinterpret_cast<float(&)[D / 8][4]>(o));
  }
}

// The counter of items handed out after each block's first (an int; 16 bytes, the alignment the
// call asks of a workspace).
std::size_t workspace_bytes(const Args& /*args*/) { return 16; }

// One tiling's kernel and launch.
template <class T, class Tile>
void launch_tiled(const Args& a, const LaunchContext& ctx) {
  launch_hopper<T, Tile>(persistent_kernel<T, Tile>, a, ctx.stream, static_cast<int*>(a.workspace));
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(a, [&]<class T, int D>() {
    if constexpr (D == 64) {
      // Head dim 64: three consumer warpgroups (Q tiles of 192 rows, 160 registers a consumer
      // thread, 512 threads) where the tile model says their rate outweighs the rows and keys
      // they pad (tile_model.hpp). They run 05's loop: S of the next 128-key tile, P and O fit
      // 160 registers.
      if (three_consumers_pay(a.shape)) return launch_tiled<T, Tiling<D, 128, 2, 3>>(a, ctx);
      // Otherwise two, without a mask with tiles of 256 keys, so that the row maxima, the
      // rescale of O and a stage's barriers come half as often per product (cuDNN's kernel
      // there takes 256 too). Under a causal mask 128, since a 256-key tile on the diagonal
      // spends more of its products on masked keys.
      if (!a.shape.causal) return launch_tiled<T, Tiling<D, 256>>(a, ctx);
    }
    launch_tiled<T, Tiling<D>>(a, ctx);
  });
}

}  // namespace

AttentionVariant persistent_variant() {
  return {
      {.family = "attention",
       .name = "persistent",
       .description = "05 (04 at head dim 64, two consumers) in one block an SM that works through Q tiles",
       .technique = "a persistent, causal-aware schedule: a tile's start and end under its neighbours' work",
       .smem = SmemKind::dynamic_alloc,
       .why_no_model = "not modelled yet: its wavefronts are not derived",
       .unavailable = tensor_matmul::detail::why_no_wgmma},
      {workspace_bytes, launch}};
}

}  // namespace smemlab::attention::detail
