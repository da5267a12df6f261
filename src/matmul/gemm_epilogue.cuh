#pragma once
// The epilogue of the SGEMM kernel (the parts are listed in tile_config.cuh): a thread's
// accumulators, left by gemm_mainloop.cuh, stored to C as alpha * acc + beta * C.
// Split K: some tiles are divided among `slices` blocks, each an equal share of K. A block
// holding part of a tile writes its partial sums to the workspace, and the last of the tile's
// blocks to finish (a counter per tile says which) adds the parts in slice order and stores C.
// When every block of the launch is resident at once (a cooperative launch: gemm_launch.cuh),
// every block of a tile waits for the others, then sums a share of the tile: the sum is spread
// over the tile's blocks instead of serialised in one.
#include <cuda/atomic>

#include <cstddef>

#include "matmul/gemm_device.cuh"
#include "matmul/tile_config.cuh"

namespace smemlab::matmul::detail {

// A split launch: every tile from whole_tiles on takes `slices` blocks, each an equal share of
// the tile's K-steps (tiles [0, whole_tiles) are left to a launch of one block per tile).
struct SplitSchedule {
  int group = 0;  // raster group, as for one block per tile
  int whole_tiles = 0;
  int slices = 1;
  int steps_per_tile = 0;      // K-steps of one tile: ceil(k / BK)
  // The blocks of a divided tile all sum a share of its parts (every block of the launch is
  // resident at once: a cooperative launch), instead of the last of them summing them all.
  bool spread_sum = false;
  int* counters = nullptr;     // per divided tile: blocks done with it; zeroed by each call
  float4* partials = nullptr;  // per block of a divided tile: BM x BN partial sums
};

// A thread's accumulators as float4 chunks, q = i * TN / 4 + j: acc[i][4j .. 4j + 3].
template <class Cfg>
inline constexpr int kChunks = Cfg::kTM * Cfg::kTN / 4;

template <class Cfg>
__device__ __forceinline__ float4 chunk(const float (&acc)[Cfg::kTM][Cfg::kTN], int q) {
  const int i = q / (Cfg::kTN / 4);
  const int j = q % (Cfg::kTN / 4) * 4;
  return {acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]};
}

template <class Cfg>
__device__ __forceinline__ void set_chunk(float (&acc)[Cfg::kTM][Cfg::kTN], int q, float4 v) {
  const int i = q / (Cfg::kTN / 4);
  const int j = q % (Cfg::kTN / 4) * 4;
  acc[i][j] = v.x;
  acc[i][j + 1] = v.y;
  acc[i][j + 2] = v.z;
  acc[i][j + 3] = v.w;
}

// Where chunk q of `thread` lies in the block's tile: its fragment's 4x4 pieces are
// kLaneRows x 4 rows and kLaneCols x 4 columns apart.
template <class Cfg>
__device__ __forceinline__ int chunk_row(int q, int thread = static_cast<int>(threadIdx.x)) {
  const int i = q / (Cfg::kTN / 4);
  return fragment_row<Cfg>(thread) + i / 4 * Cfg::kLaneRows * 4 + i % 4;
}

template <class Cfg>
__device__ __forceinline__ int chunk_col(int q, int thread = static_cast<int>(threadIdx.x)) {
  return fragment_col<Cfg>(thread) + q % (Cfg::kTN / 4) * Cfg::kLaneCols * 4;
}

// Runs body(store), store(row, col, float4) writing alpha * value + beta * C there: checked
// when the tile reaches past C's edge, 16 bytes at a time when C's rows allow. The choice is
// made once, outside body's loop.
template <class Body>
__device__ __forceinline__ void with_c_stores(const GemmArgs& g, bool edge, Body&& body) {
  const bool vector_c = rows_are_16b_aligned(g.c, g.ldc);
  epilogue(edge, [&](auto checked) {
    constexpr bool kChecked = decltype(checked)::value;
    if (vector_c) {
      body([&](int r, int c, float4 v) { store_c4_if<kChecked, true>(g, r, c, v); });
    } else {
      body([&](int r, int c, float4 v) { store_c4_if<kChecked, false>(g, r, c, v); });
    }
  });
}

// C's tile at t from this thread's accumulators: alpha * acc + beta * C.
template <class Cfg>
__device__ __forceinline__ void store_tile(const GemmArgs& g, const TileOrigin& t,
                                           const float (&acc)[Cfg::kTM][Cfg::kTN]) {
  with_c_stores(g, t.edge, [&](auto store) {
#pragma unroll
    for (int q = 0; q < kChunks<Cfg>; ++q) store(t.row0 + chunk_row<Cfg>(q), t.col0 + chunk_col<Cfg>(q), chunk<Cfg>(acc, q));
  });
}

// A thread's partial sums are written and read as kThreads-strided float4 chunks, so a warp's
// accesses are 512 contiguous bytes. A tile's slot holds kChunks x kThreads float4s; float4 e
// of it is chunk e / kThreads of thread e % kThreads.
template <class Cfg>
struct Parts {
  static constexpr int kSlot = kChunks<Cfg> * Cfg::kThreads;  // float4s: BM x BN floats

  // The first of the tile's slots.
  static __device__ float4* of_tile(const SplitSchedule& s, int divided) {
    return s.partials + static_cast<std::size_t>(divided) * s.slices * kSlot;
  }

  // Float4 e of the tile, summed over its slices in slice order (so the result does not
  // depend on which block sums it, or when).
  static __device__ float4 sum(const SplitSchedule& s, const float4* tile_parts, int e) {
    float4 sum = __ldcg(tile_parts + e);
    for (int z = 1; z < s.slices; ++z) {
      const float4 part = __ldcg(tile_parts + z * kSlot + e);
      sum = {sum.x + part.x, sum.y + part.y, sum.z + part.z, sum.w + part.w};
    }
    return sum;
  }

  // Writes this block's partial sums to its slot, then counts the block in; returns the count
  // before it (block 0 only).
  static __device__ int write_and_arrive(const SplitSchedule& s, int divided, int slice,
                                         const float (&acc)[Cfg::kTM][Cfg::kTN]) {
    const int tid = static_cast<int>(threadIdx.x);
    float4* const slot = of_tile(s, divided) + slice * kSlot + tid;
#pragma unroll
    for (int q = 0; q < kChunks<Cfg>; ++q) slot[q * Cfg::kThreads] = chunk<Cfg>(acc, q);
    __threadfence();  // the parts are visible device-wide before the counter says so
    __syncthreads();
    return tid == 0 ? atomicAdd(&s.counters[divided], 1) : 0;
  }
};

// The block `slice` of a divided tile: its partial sums go to its slot, and the last of the
// tile's blocks to finish sums every part into acc and returns true; the others return false.
template <class Cfg>
__device__ __forceinline__ bool last_block_sums(const SplitSchedule& s, int divided, int slice,
                                                float (&acc)[Cfg::kTM][Cfg::kTN], int& last_flag) {
  using P = Parts<Cfg>;
  const int tid = static_cast<int>(threadIdx.x);
  const int before = P::write_and_arrive(s, divided, slice, acc);
  if (tid == 0) last_flag = before == s.slices - 1;
  __syncthreads();
  if (!last_flag) return false;
  __threadfence();
  const float4* const tile_parts = P::of_tile(s, divided) + tid;
#pragma unroll
  for (int q = 0; q < kChunks<Cfg>; ++q) set_chunk<Cfg>(acc, q, P::sum(s, tile_parts, q * Cfg::kThreads));
  return true;
}

// The block `slice` of a divided tile whose blocks are all resident: it writes its partial
// sums, waits for the tile's other blocks, then sums and stores its share of the tile's float4s
// (whole warps' worth, in order). Each block reads one slot's worth instead of the last block
// reading them all: at 64 slices, 1/64 of the time.
template <class Cfg>
__device__ __forceinline__ void every_block_sums(const GemmArgs& g, const TileOrigin& t,
                                                 const SplitSchedule& s, int divided, int slice,
                                                 const float (&acc)[Cfg::kTM][Cfg::kTN]) {
  using P = Parts<Cfg>;
  const int tid = static_cast<int>(threadIdx.x);
  P::write_and_arrive(s, divided, slice, acc);
  if (tid == 0) {
    const cuda::atomic_ref<int, cuda::thread_scope_device> count(s.counters[divided]);
    while (count.load(cuda::memory_order_acquire) < s.slices) __nanosleep(256);
  }
  __syncthreads();
  __threadfence();
  constexpr int kWarpRuns = P::kSlot / 32;
  const int begin = slice * kWarpRuns / s.slices * 32;
  const int end = (slice + 1) * kWarpRuns / s.slices * 32;
  const float4* const tile_parts = P::of_tile(s, divided);
  with_c_stores(g, t.edge, [&](auto store) {
    for (int e = begin + tid; e < end; e += Cfg::kThreads) {
      const int q = e / Cfg::kThreads;
      const int owner = e % Cfg::kThreads;
      store(t.row0 + chunk_row<Cfg>(q, owner), t.col0 + chunk_col<Cfg>(q, owner), P::sum(s, tile_parts, e));
    }
  });
}

}  // namespace smemlab::matmul::detail
