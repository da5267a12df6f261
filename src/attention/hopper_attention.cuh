#pragma once
// The pieces the Hopper attention steps share: the block's shape (a producer warpgroup, two
// consumer warpgroups of 64 query rows, tiles of 128 keys (64 at head dim 256) in two stages), the shared-memory layout,
// the rank-4 tensor maps of Q, K and V and their TMA loads, the K-major wgmma descriptors, and
// the launch. Built for sm_90a only.
#include <cuda.h>

#include <cstdint>
#include <stdexcept>

#include "attention/attention_device.cuh"
#include "attention/wgmma_ops.cuh"
#include "tensor_matmul/hopper.cuh"
#include "tensor_matmul/tensor_map.hpp"

namespace smemlab::attention::detail {

namespace hopper = smemlab::tensor_matmul::detail::hopper;

constexpr int kConsumers = 2;           // warpgroups of 64 query rows
constexpr int kRows = 64 * kConsumers;  // Q rows a block
// Keys a K/V tile: 128, so that S's wgmma (64 x 128, both operands from shared memory) reads 6 KB
// a 131,072 multiply-adds where 64 keys read 4 KB a 65,536; 64 at head dim 256, where two stages
// of 128 would not fit.
template <int D>
constexpr int kKeys = D == 256 ? 64 : 128;
constexpr int kStages = 2;  // K/V tiles in flight
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kBlockColumns = 64;  // head_dim columns a 128-byte swizzled block holds

// Shared memory: Q, then the stages of K and of V, each a row of 64-column blocks (rows x 128
// bytes each, 1024-byte aligned as the swizzle needs), then up to 16 mbarriers.
template <int D>
struct Smem {
  static constexpr int kBlocks = D / kBlockColumns;
  static constexpr int kQBytes = kRows * D * 2;
  static constexpr int kTileBytes = kKeys<D> * D * 2;  // one stage of K or of V
  static constexpr int kK = kQBytes;
  static constexpr int kV = kK + kStages * kTileBytes;
  static constexpr int kBarriers = kV + kStages * kTileBytes;
  static constexpr int kBytes = kBarriers + 16 * 8 + 1024;  // + room to align the base
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
// a stage's K or V read by both consumers (one arrival each).
struct Barriers {
  std::uint64_t* q_full;
  std::uint64_t* k_full;  // one a stage, as the others
  std::uint64_t* v_full;
  std::uint64_t* k_empty;
  std::uint64_t* v_empty;
};

template <int D>
__device__ __forceinline__ Barriers barriers_at(unsigned char* smem) {
  auto* const b = reinterpret_cast<std::uint64_t*>(smem + Smem<D>::kBarriers);
  return {b, b + 1, b + 1 + kStages, b + 1 + 2 * kStages, b + 1 + 3 * kStages};
}

// By one thread, before the block synchronises.
__device__ __forceinline__ void init_barriers(const Barriers& b) {
  hopper::barrier_init(b.q_full, 1);
  for (int s = 0; s < kStages; ++s) {
    hopper::barrier_init(&b.k_full[s], 1);
    hopper::barrier_init(&b.v_full[s], 1);
    hopper::barrier_init(&b.k_empty[s], kConsumers);
    hopper::barrier_init(&b.v_empty[s], kConsumers);
  }
  hopper::barrier_init_fence();
}

// The producer thread: Q's tile, then K and V of every tile into the ring of stages, each copy
// waiting until both consumers have freed its buffer (K and V apart, so a step that is done with
// K early lets the next K in early).
template <class T, int D>
__device__ __forceinline__ void produce(const Maps& maps, const Problem<T>& p, const BlockRows& at, int tiles,
                                        unsigned char* smem, const Barriers& b) {
  using L = Smem<D>;
  const int first_row = at.tile * kRows;
  hopper::arrive_expect_bytes(b.q_full, L::kQBytes);
  for (int c = 0; c < L::kBlocks; ++c)
    tma_load_4d(smem + c * kRows * 128, maps.q, c * kBlockColumns, first_row, at.head, at.batch, b.q_full);
  const int kv_head = at.head / p.group;
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile % kStages;
    const unsigned freed = (tile / kStages - 1) & 1;  // the phase that frees the stage's last use
    unsigned char* const k_tile = smem + L::kK + stage * L::kTileBytes;
    unsigned char* const v_tile = smem + L::kV + stage * L::kTileBytes;
    if (tile >= kStages) hopper::wait(&b.k_empty[stage], freed);
    hopper::arrive_expect_bytes(&b.k_full[stage], L::kTileBytes);
    for (int c = 0; c < L::kBlocks; ++c)
      tma_load_4d(k_tile + c * kKeys<D> * 128, maps.k, c * kBlockColumns, tile * kKeys<D>, kv_head, at.batch,
                  &b.k_full[stage]);
    if (tile >= kStages) hopper::wait(&b.v_empty[stage], freed);
    hopper::arrive_expect_bytes(&b.v_full[stage], L::kTileBytes);
    for (int c = 0; c < L::kBlocks; ++c)
      tma_load_4d(v_tile + c * kKeys<D> * 128, maps.v, c * kBlockColumns, tile * kKeys<D>, kv_head, at.batch,
                  &b.v_full[stage]);
  }
}

// A consumer thread's view of its block: the shared memory, the barriers, the rows it owns and
// the key tiles it works through.
template <int D>
struct Consumer {
  unsigned char* smem;
  Barriers bars;
  BlockRows at;
  KeyRange keys;
  int tiles;
  WarpRows<kKeys<D>, D> rows;
  const unsigned char* q_tile;  // this consumer's 64 rows of each of Q's blocks

  // Whether tile `tile` needs the mask (it reaches past the first row's causal limit or K's end).
  [[nodiscard]] __device__ __forceinline__ bool masked(int tile) const {
    return keys.unmasked_end < (tile + 1) * kKeys<D>;
  }
};

// The start every Hopper step's block shares: the barriers set up, the producer warpgroup gives
// its registers back, its first thread issues every copy, and it returns false; a consumer
// thread takes 240 registers, waits for Q's tile and returns true with its view in `c`.
template <class T, int D>
__device__ __forceinline__ bool start_block(const Maps& maps, const Problem<T>& p, unsigned char* smem_raw,
                                            Consumer<D>& c) {
  c.smem = aligned_smem(smem_raw);
  c.bars = barriers_at<D>(c.smem);
  c.at = block_rows(p);
  const int first_row = c.at.tile * kRows;
  c.keys = key_range(p, first_row, kRows);
  c.tiles = (c.keys.end + kKeys<D> - 1) / kKeys<D>;
  if (threadIdx.x == 0) init_barriers(c.bars);
  __syncthreads();
  if (threadIdx.x / 128 == 0) {  // the producer warpgroup
    hopper::release_registers<24>();
    if (threadIdx.x == 0) produce<T, D>(maps, p, c.at, c.tiles, c.smem, c.bars);
    return false;
  }
  hopper::claim_registers<240>();
  const int consumer = static_cast<int>(threadIdx.x) / 128 - 1;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = (static_cast<int>(threadIdx.x) / 32) % 4;
  c.rows = {.top = first_row + 64 * consumer + 16 * warp + lane / 4, .t = lane % 4};
  c.q_tile = c.smem + consumer * 64 * 128;
  hopper::wait(c.bars.q_full, 0);
  return true;
}

// Issues S = Q K^T for a consumer's 64 rows (q_tile: its rows of Q's blocks) as one wgmma batch;
// the caller waits for it (hopper::wait_batches) before reading s.
template <class T, int D>
__device__ __forceinline__ void issue_scores(float (&s)[kKeys<D> / 2], const unsigned char* q_tile,
                                             const unsigned char* k_tile) {
  hopper::keep_in_registers(s);
  hopper::fence();
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk)
    ScoreMma<T, kKeys<D>>::mma(s, k_major(q_tile, kRows, 16 * kk), k_major(k_tile, kKeys<D>, 16 * kk));
  hopper::commit();
}

// Issues O += P V as one wgmma batch, P's fragments of the tile's 64 keys in registers (wgmma
// reads them while it runs: they stay untouched until the batch is waited for). V is N-major:
// 16 keys are 16 rows of each 64-column block, 2048 bytes on a step; blocks kKeys<D> x 128 bytes
// apart.
template <class T, int D>
__device__ __forceinline__ void issue_output(float (&o)[D / 2], const std::uint32_t (&a)[kKeys<D> / 16][4],
                                             const unsigned char* v_tile) {
  hopper::keep_in_registers(o);
  hopper::fence();
#pragma unroll
  for (int kk = 0; kk < kKeys<D> / 16; ++kk)
    OutputMma<T, D>::mma(o, a[kk], hopper::descriptor(v_tile + kk * 16 * 128, kKeys<D> * 128, 1024));
  hopper::commit();
}

// The tensor maps of a call and its grid of Q tiles; then kernel<<<grid, kThreads, smem>>>.
template <class T, int D, class Kernel>
void launch_hopper(Kernel kernel, const Args& a, cudaStream_t stream) {
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
    maps.k = map(a.k, a.k_strides, s.kv_heads, s.kv_len, kKeys<D>);
    maps.v = map(a.v, a.v_strides, s.kv_heads, s.kv_len, kKeys<D>);
  }
  const Problem<T> p = problem_of<T>(a, kRows);
  const long long blocks = static_cast<long long>(s.batch) * s.q_heads * p.q_tiles;
  if (blocks > 0x7FFFFFFF) throw std::invalid_argument("attention: more than 2^31 - 1 Q tiles");
  SMEMLAB_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Smem<D>::kBytes));
  kernel<<<static_cast<unsigned>(blocks), kThreads, Smem<D>::kBytes, stream>>>(maps, p);
  SMEMLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace smemlab::attention::detail
