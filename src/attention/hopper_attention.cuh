#pragma once
// The pieces the Hopper attention steps share: the block's tiling (a producer warpgroup and
// consumer warpgroups of 64 query rows, by default two of them and tiles of 128 keys (64 at head
// dim 256) in two stages; a step may choose others, as step 07 takes three consumers or 256-key
// tiles at head dim 64) and its shared-memory layout, the rank-4 tensor maps of Q, K and V and
// their TMA loads, the K-major wgmma descriptors, the consumers' two loops over key tiles (04's
// in turn, 05's overlapped), and the launch (one block a Q tile, or one an SM for step 07).
// Built for sm_90a only.
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "attention/attention_device.cuh"
#include "attention/wgmma_ops.cuh"
#include "core/occupancy.hpp"
#include "tensor_matmul/hopper.cuh"
#include "tensor_matmul/tensor_map.hpp"

namespace smemlab::attention::detail {

namespace hopper = smemlab::tensor_matmul::detail::hopper;

// Keys a K/V tile by default: 128, so that S's wgmma (64 x 128, both operands from shared memory)
// reads 6 KB a 131,072 multiply-adds where 64 keys read 4 KB a 65,536; 64 at head dim 256, where
// two stages of 128 would not fit.
template <int D>
constexpr int kDefaultKeys = D == 256 ? 64 : 128;
constexpr int kBlockColumns = 64;  // head_dim columns a 128-byte swizzled block holds

// A block's tiling: Consumers warpgroups of 64 query rows each beside the producer warpgroup, K/V
// tiles of Keys keys, Stages of them in flight. Shared memory: Q, then the stages of K and of V,
// each a row of 64-column blocks (rows x 128 bytes each, 1024-byte aligned as the swizzle needs),
// then up to 16 mbarriers.
template <int D, int Keys = kDefaultKeys<D>, int Stages = 2, int Consumers = 2>
struct Tiling {
  static_assert(Keys % 16 == 0 && Keys <= 256, "a wgmma N and a TMA box of Keys rows");
  static_assert(2 + 4 * Stages <= 16, "the mbarriers' room");
  static_assert(Consumers >= 1 && 64 * Consumers <= 256, "a TMA box of the block's Q rows");
  static constexpr int kHeadDim = D;
  static constexpr int kKeys = Keys;
  static constexpr int kStages = Stages;
  static constexpr int kConsumers = Consumers;
  static constexpr int kRows = 64 * Consumers;  // Q rows a block
  static constexpr int kThreads = 128 * (1 + Consumers);
  // Registers a thread after setmaxnreg: the producer keeps 24, the consumers share the rest of
  // what the launch gave the block (the most a thread can have with kThreads threads on an SM;
  // a consumer's setmaxnreg.inc can only take registers the producer gave back), in multiples
  // of 8: 240 with two consumers, 160 with three.
  static constexpr int kProducerRegisters = 24;
  static constexpr int kLaunchRegisters = 65536 / kThreads / 8 * 8;
  static constexpr int kConsumerRegisters =
      std::min(256, (kLaunchRegisters * kThreads - kProducerRegisters * 128) / (128 * Consumers) / 8 * 8);
  static_assert(kConsumerRegisters >= kLaunchRegisters, "setmaxnreg.inc cannot lower a budget");
  static constexpr int kBlocks = D / kBlockColumns;
  static constexpr int kQBytes = kRows * D * 2;
  static constexpr int kTileBytes = Keys * D * 2;  // one stage of K or of V
  static constexpr int kK = kQBytes;
  static constexpr int kV = kK + Stages * kTileBytes;
  static constexpr int kBarriers = kV + Stages * kTileBytes;
  static constexpr int kSmemBytes = kBarriers + 16 * 8 + 1024;  // + room to align the base
};

struct Maps {
  CUtensorMap q, k, v;
};

// The box at (column, row, head, batch) of a rank-4 map into shared memory, completing on `bar`.
__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap& map, int column, int row, int head,
                                            int batch, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
      "%5}], "
      "[%6];\n" ::"r"(hopper::shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(column), "r"(row), "r"(head), "r"(batch),
      "r"(hopper::shared_address(bar))
      : "memory");
}

// A K-major operand of rows x (16 columns at `column`) in a tile of 64-column swizzled blocks
// (rows x 128 bytes each): 8-row groups 1024 bytes apart, 16 columns 32 bytes on.
__device__ __forceinline__ std::uint64_t k_major(const unsigned char* tile, int rows, int column) {
  return hopper::descriptor(tile + (column / kBlockColumns) * rows * 128 + (column % kBlockColumns) * 2, 0,
                            1024);
}

// The 1024-byte aligned start of the dynamic shared memory (the swizzle's pattern repeats every
// 1024 bytes and is read from the address).
__device__ __forceinline__ unsigned char* aligned_smem(unsigned char* raw) {
  return reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(raw) + 1023) &
                                          ~std::uintptr_t{1023});
}

// The mbarriers: Q landed; a stage's K or V landed (one arrival, the producer's, and its bytes);
// a stage's K or V read by every consumer (one arrival each); Q read by every consumer (a block
// that works through several Q tiles loads the next one then).
struct Barriers {
  std::uint64_t* q_full;
  std::uint64_t* k_full;  // one a stage, as the others
  std::uint64_t* v_full;
  std::uint64_t* k_empty;
  std::uint64_t* v_empty;
  std::uint64_t* q_empty;
};

template <class Tile>
__device__ __forceinline__ Barriers barriers_at(unsigned char* smem) {
  constexpr int kStages = Tile::kStages;
  auto* const b = reinterpret_cast<std::uint64_t*>(smem + Tile::kBarriers);
  return {b, b + 1, b + 1 + kStages, b + 1 + 2 * kStages, b + 1 + 3 * kStages, b + 1 + 4 * kStages};
}

// By one thread, before the block synchronises.
template <class Tile>
__device__ __forceinline__ void init_barriers(const Barriers& b) {
  hopper::barrier_init(b.q_full, 1);
  hopper::barrier_init(b.q_empty, Tile::kConsumers);
  for (int s = 0; s < Tile::kStages; ++s) {
    hopper::barrier_init(&b.k_full[s], 1);
    hopper::barrier_init(&b.v_full[s], 1);
    hopper::barrier_init(&b.k_empty[s], Tile::kConsumers);
    hopper::barrier_init(&b.v_empty[s], Tile::kConsumers);
  }
  hopper::barrier_init_fence();
}

// The producer thread: Q's tile, then K and V of every tile into the ring of stages, each copy
// waiting until every consumer has freed its buffer (K and V apart, so a step that is done with
// K early lets the next K in early). `ring`: the tiles the ring has carried before this Q tile's
// (a block that works through several Q tiles keeps one ring). `filled` runs once, when Q and
// the first stages' copies are issued: the copies after them wait for this Q tile's own
// consumers.
struct NothingToDo {
  __device__ void operator()() const {}
};
template <class T, class Tile, class Filled = NothingToDo>
__device__ __forceinline__ void produce(const Maps& maps, const Problem<T>& p, const BlockRows& at, int tiles,
                                        unsigned char* smem, const Barriers& b, int ring = 0,
                                        const Filled& filled = {}) {
  constexpr int Keys = Tile::kKeys;
  constexpr int Stages = Tile::kStages;
  const int first_row = at.tile * Tile::kRows;
  hopper::arrive_expect_bytes(b.q_full, Tile::kQBytes);
  for (int c = 0; c < Tile::kBlocks; ++c)
    tma_load_4d(smem + c * Tile::kRows * 128, maps.q, c * kBlockColumns, first_row, at.head, at.batch, b.q_full);
  const int kv_head = at.head / p.group;
  for (int tile = 0; tile < tiles; ++tile) {
    if (tile == Stages) filled();
    const int n = ring + tile;  // the ring's position
    const int stage = n % Stages;
    const unsigned freed = (n / Stages - 1) & 1;  // the phase that frees the stage's last use
    unsigned char* const k_tile = smem + Tile::kK + stage * Tile::kTileBytes;
    unsigned char* const v_tile = smem + Tile::kV + stage * Tile::kTileBytes;
    if (n >= Stages) hopper::wait(&b.k_empty[stage], freed);
    hopper::arrive_expect_bytes(&b.k_full[stage], Tile::kTileBytes);
    for (int c = 0; c < Tile::kBlocks; ++c)
      tma_load_4d(k_tile + c * Keys * 128, maps.k, c * kBlockColumns, tile * Keys, kv_head, at.batch,
                  &b.k_full[stage]);
    if (n >= Stages) hopper::wait(&b.v_empty[stage], freed);
    hopper::arrive_expect_bytes(&b.v_full[stage], Tile::kTileBytes);
    for (int c = 0; c < Tile::kBlocks; ++c)
      tma_load_4d(v_tile + c * Keys * 128, maps.v, c * kBlockColumns, tile * Keys, kv_head, at.batch,
                  &b.v_full[stage]);
  }
  if (tiles <= Stages) filled();
}

// A consumer thread's view of its block: the shared memory, the barriers, the rows it owns and
// the key tiles it works through.
template <class Tile>
struct Consumer {
  static constexpr int Keys = Tile::kKeys;
  unsigned char* smem;
  Barriers bars;
  BlockRows at;
  KeyRange keys;
  int tiles;
  WarpRows<Keys, Tile::kHeadDim> rows;
  const unsigned char* q_tile;  // this consumer's 64 rows of each of Q's blocks

  // Whether tile `tile` needs the mask (it reaches past the first row's causal limit or K's end).
  [[nodiscard]] __device__ __forceinline__ bool masked(int tile) const {
    return keys.unmasked_end < (tile + 1) * Keys;
  }

  // By every thread of the block, first: the aligned shared memory, its barriers set up.
  __device__ __forceinline__ void begin(unsigned char* smem_raw) {
    smem = aligned_smem(smem_raw);
    bars = barriers_at<Tile>(smem);
    if (threadIdx.x == 0) init_barriers<Tile>(bars);
    __syncthreads();
  }

  // Q tile `tile` of p: the keys its rows see and the key tiles it meets.
  template <class T>
  __device__ __forceinline__ void take(const Problem<T>& p, const BlockRows& tile) {
    at = tile;
    keys = key_range(p, at.tile * Tile::kRows, Tile::kRows);
    tiles = (keys.end + Keys - 1) / Keys;
  }

  // By a consumer thread, for the Q tile taken: the rows it owns (their softmax started afresh)
  // and its warpgroup's rows of Q's buffer.
  __device__ __forceinline__ void own_rows() {
    const int consumer = static_cast<int>(threadIdx.x) / 128 - 1;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = (static_cast<int>(threadIdx.x) / 32) % 4;
    rows = {.top = at.tile * Tile::kRows + 64 * consumer + 16 * warp + lane / 4, .t = lane % 4};
    q_tile = smem + consumer * 64 * 128;
  }
};

// The start every Hopper step's block shares: the barriers set up, the producer warpgroup gives
// its registers back, its first thread issues every copy, and it returns false; a consumer
// thread takes its registers, waits for Q's tile and returns true with its view in `c`.
template <class T, class Tile>
__device__ __forceinline__ bool start_block(const Maps& maps, const Problem<T>& p, unsigned char* smem_raw,
                                            Consumer<Tile>& c) {
  c.take(p, block_rows(p));
  c.begin(smem_raw);
  if (threadIdx.x / 128 == 0) {  // the producer warpgroup
    hopper::release_registers<Tile::kProducerRegisters>();
    if (threadIdx.x == 0) produce<T, Tile>(maps, p, c.at, c.tiles, c.smem, c.bars);
    return false;
  }
  hopper::claim_registers<Tile::kConsumerRegisters>();
  c.own_rows();
  hopper::wait(c.bars.q_full, 0);
  return true;
}

// Issues S = Q K^T for a consumer's 64 rows (q_tile: its rows of Q's blocks) as one wgmma batch;
// the caller waits for it (hopper::wait_batches) before reading s.
template <class T, class Tile>
__device__ __forceinline__ void issue_scores(float (&s)[Tile::kKeys / 2], const unsigned char* q_tile,
                                             const unsigned char* k_tile) {
  hopper::keep_in_registers(s);
  hopper::fence();
#pragma unroll
  for (int kk = 0; kk < Tile::kHeadDim / 16; ++kk)
    ScoreMma<T, Tile::kKeys>::mma(s, k_major(q_tile, Tile::kRows, 16 * kk), k_major(k_tile, Tile::kKeys, 16 * kk));
  hopper::commit();
}

// Issues O += P V as one wgmma batch, P's fragments of the tile's Keys keys in registers (wgmma
// reads them while it runs: they stay untouched until the batch is waited for). V is N-major:
// 16 keys are 16 rows of each 64-column block, 2048 bytes on a step; blocks Keys x 128 bytes
// apart.
template <class T, class Tile>
__device__ __forceinline__ void issue_output(float (&o)[Tile::kHeadDim / 2],
                                             const std::uint32_t (&a)[Tile::kKeys / 16][4],
                                             const unsigned char* v_tile) {
  constexpr int Keys = Tile::kKeys;
  hopper::keep_in_registers(o);
  hopper::fence();
#pragma unroll
  for (int kk = 0; kk < Keys / 16; ++kk)
    OutputMma<T, Tile::kHeadDim>::mma(o, a[kk], hopper::descriptor(v_tile + kk * 16 * 128, Keys * 128, 1024));
  hopper::commit();
}

// A consumer's tiles one after the other (step 04): S, its softmax, then P V, each waited for
// before the next; every consumer frees the stage's K and V after its P V. O (its accumulators,
// o) ends unnormalised; `ring` as for produce(); FreesQ as for overlapped_tiles() below.
template <bool FreesQ = false, class T, class Tile>
__device__ __forceinline__ void tiles_in_turn(Consumer<Tile>& c, const Problem<T>& p,
                                              float (&o)[Tile::kHeadDim / 2], int ring = 0) {
  constexpr int D = Tile::kHeadDim;
  constexpr int Keys = Tile::kKeys;
  constexpr int Stages = Tile::kStages;
  auto& acc = reinterpret_cast<float(&)[D / 8][4]>(o);
  const bool arrives = threadIdx.x % 128 == 0;  // for its warpgroup
  for (int tile = 0; tile < c.tiles; ++tile) {
    const int stage = (ring + tile) % Stages;
    const unsigned parity = ((ring + tile) / Stages) & 1;
    const unsigned char* const k_tile = c.smem + Tile::kK + stage * Tile::kTileBytes;
    const unsigned char* const v_tile = c.smem + Tile::kV + stage * Tile::kTileBytes;

    float s_flat[Keys / 2] = {};
    hopper::wait(&c.bars.k_full[stage], parity);
    issue_scores<T, Tile>(s_flat, c.q_tile, k_tile);
    hopper::wait_batches<0>();
    hopper::keep_in_registers(s_flat);
    if (FreesQ && tile == c.tiles - 1 && arrives) hopper::arrive(c.bars.q_empty);
    auto& s = reinterpret_cast<float(&)[Keys / 8][4]>(s_flat);
    if (c.masked(tile)) c.rows.mask(s, p, tile * Keys);
    c.rows.update(s, acc, p.scale_log2);

    // P's fragments all made before the products: wgmma reads its A registers while it runs.
    std::uint32_t a[Keys / 16][4];
#pragma unroll
    for (int kk = 0; kk < Keys / 16; ++kk) p_fragment<T, Keys>(a[kk], s, kk);
    hopper::wait(&c.bars.v_full[stage], parity);
    issue_output<T, Tile>(o, a, v_tile);
    hopper::wait_batches<0>();
    hopper::keep_in_registers(o);
    if (arrives) {  // this consumer is done with the stage's K and V
      hopper::arrive(&c.bars.k_empty[stage]);
      hopper::arrive(&c.bars.v_empty[stage]);
    }
  }
}

// A consumer's tiles with the softmax of one beside the products of its neighbours (step 05):
// S of the next tile and P V of this one are two wgmma batches; the consumer waits for S only,
// computes its softmax while P V runs, then waits for P V before it rescales O. K and V are
// freed apart. O (its accumulators, o) ends unnormalised; `ring` as for produce(). FreesQ: the
// consumer also arrives on q_empty once its last S is done, so that a block that works through
// several Q tiles can load the next Q under the last P V (with no keys, it loads no Q).
template <bool FreesQ = false, class T, class Tile>
__device__ __forceinline__ void overlapped_tiles(Consumer<Tile>& c, const Problem<T>& p,
                                                 float (&o)[Tile::kHeadDim / 2], int ring = 0) {
  constexpr int Keys = Tile::kKeys;
  constexpr int Stages = Tile::kStages;
  auto& acc = reinterpret_cast<float(&)[Tile::kHeadDim / 8][4]>(o);
  const bool arrives = threadIdx.x % 128 == 0;  // for its warpgroup
  if (c.tiles == 0) return;
  const auto stage_of = [&](int tile) { return (ring + tile) % Stages; };
  const auto parity_of = [&](int tile) { return static_cast<unsigned>((ring + tile) / Stages) & 1; };
  const auto scores_done = [&](int tile) {  // K's stage, and after the last S Q, are free
    if (!arrives) return;
    hopper::arrive(&c.bars.k_empty[stage_of(tile)]);
    if (FreesQ && tile == c.tiles - 1) hopper::arrive(c.bars.q_empty);
  };
  std::uint32_t a[Keys / 16][4];  // P's fragments of the tile whose P V is next
  {                               // the first tile: S, its softmax, P
    float s_flat[Keys / 2] = {};
    hopper::wait(&c.bars.k_full[stage_of(0)], parity_of(0));
    issue_scores<T, Tile>(s_flat, c.q_tile, c.smem + Tile::kK + stage_of(0) * Tile::kTileBytes);
    hopper::wait_batches<0>();
    hopper::keep_in_registers(s_flat);
    scores_done(0);
    auto& s = reinterpret_cast<float(&)[Keys / 8][4]>(s_flat);
    if (c.masked(0)) c.rows.mask(s, p, 0);
    c.rows.softmax(s, p.scale_log2);  // O is still 0: nothing to rescale
#pragma unroll
    for (int kk = 0; kk < Keys / 16; ++kk) p_fragment<T, Keys>(a[kk], s, kk);
  }
  for (int tile = 1; tile < c.tiles; ++tile) {
    const int stage = stage_of(tile);
    const int previous = stage_of(tile - 1);
    float s_flat[Keys / 2] = {};
    hopper::wait(&c.bars.k_full[stage], parity_of(tile));
    issue_scores<T, Tile>(s_flat, c.q_tile, c.smem + Tile::kK + stage * Tile::kTileBytes);
    hopper::wait(&c.bars.v_full[previous], parity_of(tile - 1));
    issue_output<T, Tile>(o, a, c.smem + Tile::kV + previous * Tile::kTileBytes);
    hopper::wait_batches<1>();  // S is done; P V of the previous tile may still run
    hopper::keep_in_registers(s_flat);
    scores_done(tile);
    auto& s = reinterpret_cast<float(&)[Keys / 8][4]>(s_flat);
    if (c.masked(tile)) c.rows.mask(s, p, tile * Keys);
    const auto r = c.rows.softmax(s, p.scale_log2);
    hopper::wait_batches<0>();
    hopper::keep_in_registers(o);
    if (arrives) hopper::arrive(&c.bars.v_empty[previous]);
    c.rows.rescale(acc, r);
#pragma unroll
    for (int kk = 0; kk < Keys / 16; ++kk) p_fragment<T, Keys>(a[kk], s, kk);
  }
  const int last = stage_of(c.tiles - 1);
  hopper::wait(&c.bars.v_full[last], parity_of(c.tiles - 1));
  issue_output<T, Tile>(o, a, c.smem + Tile::kV + last * Tile::kTileBytes);
  hopper::wait_batches<0>();
  hopper::keep_in_registers(o);
  if (arrives) hopper::arrive(&c.bars.v_empty[last]);
}

// The tensor maps of a call and its grid of Q tiles; then kernel<<<grid, threads, smem>>>.
// A kernel that also takes an item counter (int*) is persistent: as many blocks as can be
// resident at once (one an SM: its threads' registers fill one), each working through Q tiles;
// the counter is set to 0 just before it.
template <class T, class Tile, class Kernel>
void launch_hopper(Kernel kernel, const Args& a, cudaStream_t stream, int* item_counter = nullptr) {
  constexpr int D = Tile::kHeadDim;
  constexpr int kRows = Tile::kRows;
  constexpr int kThreads = Tile::kThreads;
  constexpr bool kPersistent = std::is_invocable_v<Kernel, Maps, Problem<T>, int*>;
  const Shape& s = a.shape;
  const auto map = [&](const void* base, const Strides& st, int heads, int len, int box_rows) {
    const std::uint64_t dims[4] = {static_cast<std::uint64_t>(D), static_cast<std::uint64_t>(len),
                                   static_cast<std::uint64_t>(heads), static_cast<std::uint64_t>(s.batch)};
    const std::uint64_t strides[3] = {static_cast<std::uint64_t>(st.seq) * 2,
                                      static_cast<std::uint64_t>(st.head) * 2,
                                      static_cast<std::uint64_t>(st.batch) * 2};
    const std::uint32_t box[4] = {kBlockColumns, static_cast<std::uint32_t>(box_rows), 1, 1};
    return tensor_matmul::detail::strided_tensor_map(base, a.type, 4, dims, strides, box);
  };
  Maps maps{};
  maps.q = map(a.q, a.q_strides, s.q_heads, s.q_len, kRows);
  if (s.kv_len > 0) {
    maps.k = map(a.k, a.k_strides, s.kv_heads, s.kv_len, Tile::kKeys);
    maps.v = map(a.v, a.v_strides, s.kv_heads, s.kv_len, Tile::kKeys);
  }
  const Problem<T> p = problem_of<T>(a, kRows);
  const long long blocks = static_cast<long long>(s.batch) * s.q_heads * p.q_tiles;
  if (blocks > 0x7FFFFFFF) throw std::invalid_argument("attention: more than 2^31 - 1 Q tiles");
  constexpr int kSmemBytes = Tile::kSmemBytes;
  SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  if constexpr (kPersistent) {
    const auto grid = static_cast<unsigned>(
        std::min<long long>(blocks, smemlab::detail::resident_blocks(kernel, kThreads, kSmemBytes)));
    SMEMLAB_CUDA_CHECK(cudaMemsetAsync(item_counter, 0, sizeof(int), stream));
    kernel<<<grid, kThreads, kSmemBytes, stream>>>(maps, p, item_counter);
  } else {
    kernel<<<static_cast<unsigned>(blocks), kThreads, kSmemBytes, stream>>>(maps, p);
  }
  SMEMLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace smemlab::attention::detail
