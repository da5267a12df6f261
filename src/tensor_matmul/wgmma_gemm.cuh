#pragma once
// The TMA + wgmma GEMM of the Hopper steps, written once and configured by a policy.
// - Copies: the copy engine (TMA) moves each K-step's tiles of A (BM rows x 128 bytes; A stored
//   transposed, as K x M: 64 rows of K x 64 rows of M, a box for each 64-row slice) and B
//   (64 rows of K x BN columns, in 64-column blocks; tf32 or B stored transposed: BN rows of
//   B's transpose x 128 bytes of K) into a ring of shared stages, swizzled by 128 bytes, zero-filling whatever lies past the matrices' edges; an mbarrier per stage
//   counts the bytes that landed. No thread computes a copy address or a bound.
// - Math: each consumer warpgroup issues wgmma on its 64-row slices of A's tile and all of
//   B's, reading both from shared memory through descriptors; the accumulators stay in
//   registers until the epilogue.
// - Without specialisation (step 07) one warpgroup does both: its first thread refills a stage
//   once the whole block has finished reading it. With it (step 08) a producer warpgroup only
//   issues copies, a full/empty pair of mbarriers per stage hands the stages back and forth,
//   and setmaxnreg moves the producer's registers to the consumers.
// - A block's work items are tiles of C; with K split (step 12), a tile and one of `count` ranges
//   of its K-steps, each writing its partial sums to the workspace for a second kernel that adds
//   them in range order. Which items a block takes, and in what order, is its tile scheduler, a
//   type the step's configuration names: StaticTiles (one block per item), PersistentTiles (one
//   block per SM walking the items, step 09 on), ClusterTiles<2> (step 11: blocks in pairs on
//   tiles one above the other share B's tile, each copying half of it into both blocks' shared
//   memory with one multicast TMA copy), ClusterRanges (step 17: a cluster of blocks on one
//   tile, each block one range of its K-steps), StreamKTiles (step 18: the tiles of whole waves
//   taken whole, the last partial wave's K-steps dealt out to the blocks, so that a tile may be
//   begun by one block and ended by another). Each item carries its K-steps; between the K-loop
//   and the epilogue the scheduler settles it: stream-K's piece that stops short of its tile's
//   end leaves its sums for the block that ends the tile, which adds them.
// - How the accumulators reach C is the epilogue, a type as well: RegisterStore (from
//   registers) or TmaStore (step 10 on: through staging buffers in shared memory, boxes of
//   32-byte rows, from which TMA stores them) or ClusterSum (step 17: the ranges of a cluster
//   added in distributed shared memory, then stored from registers' layout).
// - Swapped (step 14, tf32 only): the block computes a tile of C's transpose, B^T A^T, so that
//   B is read as the caller stores it, row-major. wgmma takes tf32 from shared memory K-major
//   only, which B is not; but its A operand may come from registers, loaded in any order. So
//   B's tile (copied as 32 x 32 boxes: 32 rows of K by 128 bytes of N) is wgmma's A, read
//   into registers, and A's tile, K-major as stored, is wgmma's B. The tile's rows run along
//   C's columns; the epilogue stores each accumulator at its transposed place in C.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cuda/atomic>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "core/per_device.hpp"
#include "smemlab/error.hpp"
#include "tensor_matmul/hopper.cuh"
#include "tensor_matmul/partial_sums.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tensor_map.hpp"
#include "tensor_matmul/tuning.hpp"

namespace smemlab::tensor_matmul::detail {

// K's steps in `count` ranges of `steps_per_split` (the last may be shorter, none is empty).
// With count > 1, the item of range r stores its tile's partial sums (alpha 1, beta 0) at
// partials + r * m * n, rows of n floats, for sum_partials; with ClusterRanges (no partials),
// the blocks of a cluster add them on chip and store C.
// Stream-K (StreamKTiles) instead: a launch of `blocks` blocks, the last stream_tiles tiles'
// K-steps dealt out evenly to its first stream_blocks; the piece of a tile that does not end it
// leaves its sums in its block's slot of partials (kBM x kBN floats a block) and sets its
// consumer's flag (flags[block * consumers + consumer], zeroed before the launch).
struct KSplit {
  int count = 1;
  int steps_per_split = 0;
  float* partials = nullptr;
  int blocks = 0;
  int stream_tiles = 0;
  int stream_blocks = 0;
  int* flags = nullptr;
};

// The K-steps of an item: the first, and how many.
struct StepRange {
  int first, count;
};

__device__ __forceinline__ StepRange steps_of(int steps_per_split, int range, int all_steps) {
  const int first = range * steps_per_split;
  return {first, min(steps_per_split, all_steps - first)};
}

// A block's unit of work: a tile of C (of C's transpose, swapped), one of K's ranges and its
// K-steps. Stream-K: `partial`, the piece does not end its tile (its sums go to the block's
// slot); blocks first_sharer to this one's predecessor hold the tile's earlier steps (none
// where first_sharer is this block).
struct WorkItem {
  TileOrigin tile;
  int range;
  StepRange steps;
  int first_sharer;
  bool partial;
};

// A consumer thread: its warpgroup among the consumers, its thread, warp and lane in it.
struct ConsumerThread {
  int consumer, ct, warp, lane;
};

// ---- Tile schedulers: the work items a block takes, in order ----
// Items are numbered tile first (item i: tile i % tiles, range i / tiles, tiles in raster
// order); a block takes its first item and then one every grid's width. With ClusterM > 1 an
// item is a column-aligned group of ClusterM tiles, one above the other, and each block of a
// cluster takes the tile its rank names.
// Schedulers whose items each cover their tile's steps, or a range of them that a second
// kernel or the cluster adds: the consumers store every item they finish.
struct StoresEveryItem {
  template <class Cfg, class Acc>
  static __device__ bool settle(Acc&, const WorkItem&, const KSplit&, const ConsumerThread&) {
    return true;
  }
};

template <int ClusterM>
struct TileWalk : StoresEveryItem {
  static constexpr int kClusterM = ClusterM;
  static constexpr bool kRangesInCluster = false;
  int rows, cols, bm, bn, group, tiles, items, item, stride, all_steps, steps_per_split;
  __device__ TileWalk(int rows, int cols, int bm, int bn, int group, const KSplit& split, int all_steps)
      : rows(rows),
        cols(cols),
        bm(bm),
        bn(bn),
        group(group),
        tiles((rows + bm * ClusterM - 1) / (bm * ClusterM) * ((cols + bn - 1) / bn)),
        items(tiles * split.count),
        item(static_cast<int>(blockIdx.x) / ClusterM),
        stride(static_cast<int>(gridDim.x) / ClusterM),
        all_steps(all_steps),
        steps_per_split(split.steps_per_split) {}
  __device__ bool next(WorkItem& w) {
    if (item >= items) return false;
    w.tile = smemlab::detail::rastered_tile_at(item % tiles, rows, cols, bm * ClusterM, bn, group);
    if constexpr (ClusterM > 1) {
      w.tile.row0 += static_cast<int>(hopper::cluster_rank()) * bm;
      w.tile.edge = w.tile.row0 + bm > rows || w.tile.col0 + bn > cols;
    }
    w.range = item / tiles;
    w.steps = steps_of(steps_per_split, w.range, all_steps);
    w.first_sharer = static_cast<int>(blockIdx.x);
    w.partial = false;
    item += stride;
    return true;
  }
  // Every block's barriers exist before any block of the cluster arrives on them.
  static __device__ void barriers_ready() {
    if constexpr (ClusterM > 1) {
      hopper::cluster_sync();
    } else {
      __syncthreads();
    }
  }
  // No block leaves while another of its cluster may still arrive on its barriers.
  static __device__ void leave() {
    if constexpr (ClusterM > 1) {
      __syncwarp();  // a warp whose one thread issued the copies converges first
      hopper::cluster_sync();
    }
  }
};

// One block per work item.
struct StaticTiles : TileWalk<1> {
  using TileWalk::TileWalk;
  static constexpr bool kPersistent = false;
};

// One block per SM, each walking the items: K-steps are numbered across a block's items, so
// the producer fills the ring with the next item's while the consumers store this one's.
struct PersistentTiles : TileWalk<1> {
  using TileWalk::TileWalk;
  static constexpr bool kPersistent = true;
};

// Persistent clusters of ClusterM blocks on tiles one above the other: they share B's tile,
// each copying 1 / ClusterM of it into every block of the cluster (TMA multicast).
template <int ClusterM>
struct ClusterTiles : TileWalk<ClusterM> {
  using TileWalk<ClusterM>::TileWalk;
  static constexpr bool kPersistent = true;
};

// Clusters of `ranges` blocks (the launch's cluster size), all on one tile: block r of a
// cluster takes K's range r, and each block one item. ClusterSum adds the ranges on chip.
struct ClusterRanges : StoresEveryItem {
  static constexpr int kClusterM = 1;  // no operand tile is shared
  static constexpr bool kRangesInCluster = true;
  static constexpr bool kPersistent = false;
  WorkItem only;
  bool taken = false;
  __device__ ClusterRanges(int rows, int cols, int bm, int bn, int group, const KSplit& split, int all_steps)
      : only{smemlab::detail::rastered_tile_at(static_cast<int>(blockIdx.x) / split.count, rows, cols, bm, bn, group),
             static_cast<int>(hopper::cluster_rank()),
             steps_of(split.steps_per_split, static_cast<int>(hopper::cluster_rank()), all_steps),
             static_cast<int>(blockIdx.x),
             false} {}
  __device__ bool next(WorkItem& w) {
    if (taken) return false;
    taken = true;
    w = only;
    return true;
  }
  // No block arrives on another's barriers: the block's own are ready after a block barrier.
  // (ClusterSum's cluster barrier comes before any block reads another's shared memory.)
  static __device__ void barriers_ready() { __syncthreads(); }
  // No block leaves while another of its cluster may still read its sums.
  static __device__ void leave() {
    __syncwarp();  // a warp whose one thread issued the copies converges first
    hopper::cluster_sync();
  }
};

// Stream-K: one block per SM, G of them. The tiles of C's whole waves come first, in raster
// order, each block taking every G-th with K whole, as PersistentTiles does; the tiles of the
// last, partial wave are not taken whole: their K-steps, numbered tile after tile, are dealt out
// evenly to the first S blocks (stream_blocks), block b taking steps U b / S to U (b + 1) / S of
// U = stream_tiles x steps, so a tile may be begun by one block and ended by the next. A block
// walks its pieces from the last: the only one that can stop short of its tile's end comes
// first, so that the block that ends the tile, which adds the others' sums, finds them long
// written. A tile's sums are its last piece's plus those of the blocks before, in block order
// from the nearest: the same order on every run.
struct StreamKTiles {
  static constexpr int kClusterM = 1;
  static constexpr bool kRangesInCluster = false;
  static constexpr bool kPersistent = true;
  static constexpr int kFixUpBarrier = 3;  // named barriers 3 and up: the consumers' own
  int rows, cols, bm, bn, group, steps, whole_tiles, next_whole, sharers;
  long long units, begin, end;  // the stream-K steps; this block's not yet taken, [begin, end)
  __device__ StreamKTiles(int rows, int cols, int bm, int bn, int group, const KSplit& split, int all_steps)
      : rows(rows),
        cols(cols),
        bm(bm),
        bn(bn),
        group(group),
        steps(all_steps),
        whole_tiles((rows + bm - 1) / bm * ((cols + bn - 1) / bn) - split.stream_tiles),
        next_whole(static_cast<int>(blockIdx.x)),
        sharers(split.stream_blocks),
        units(static_cast<long long>(split.stream_tiles) * all_steps),
        begin(static_cast<int>(blockIdx.x) < sharers ? units * blockIdx.x / sharers : 0),
        end(static_cast<int>(blockIdx.x) < sharers ? units * (blockIdx.x + 1) / sharers : 0) {}
  // The block whose steps include stream-K step u.
  __device__ int block_of(long long u) const { return static_cast<int>(((u + 1) * sharers - 1) / units); }
  __device__ bool next(WorkItem& w) {
    const int self = static_cast<int>(blockIdx.x);
    if (next_whole < whole_tiles) {
      w = {smemlab::detail::rastered_tile_at(next_whole, rows, cols, bm, bn, group), 0, {0, steps}, self, false};
      next_whole += static_cast<int>(gridDim.x);
      return true;
    }
    if (end <= begin) return false;
    const int tile = static_cast<int>((end - 1) / steps);
    const long long tile_first = static_cast<long long>(tile) * steps;
    const long long first = max(begin, tile_first);
    w = {smemlab::detail::rastered_tile_at(whole_tiles + tile, rows, cols, bm, bn, group), 0,
         {static_cast<int>(first - tile_first), static_cast<int>(end - first)},
         first > tile_first ? block_of(tile_first) : self, end < tile_first + steps};
    end = first;
    return true;
  }
  // A piece that stops short of its tile's end leaves the consumer's sums in the block's slot,
  // fragment s of thread t at float4 s x 128 + t (a warp writes 512 consecutive bytes), and
  // returns false; the piece that ends a tile others share waits for their flags and adds their
  // sums, nearest block first. Returns whether the consumers store the tile.
  template <class Cfg, class Acc>
  __device__ bool settle(Acc& acc, const WorkItem& w, const KSplit& s, const ConsumerThread& th) const {
    constexpr int kGroups = Cfg::kBN / 8;           // a slice's 8-column groups
    constexpr int kSlots = Cfg::kMTiles * kGroups;  // a thread's fragments of four sums
    static_assert(kFixUpBarrier >= 1 + Cfg::kConsumers, "TmaStore's barriers are 1 to kConsumers");
    const int self = static_cast<int>(blockIdx.x);
    if (!w.partial && w.first_sharer == self) return true;
    const auto slot = [&](int block) {
      return reinterpret_cast<float4*>(s.partials + static_cast<std::size_t>(block) * Cfg::kBM * Cfg::kBN) +
             th.consumer * kSlots * 128 + th.ct;
    };
    const auto flag = [&](int block) {
      return cuda::atomic_ref<int, cuda::thread_scope_device>(s.flags[block * Cfg::kConsumers + th.consumer]);
    };
    if (w.partial) {
      float4* const out = slot(self);
#pragma unroll
      for (int f = 0; f < kSlots; ++f) {
        const auto& a = acc[f / kGroups];
        const int j = f % kGroups;
        out[f * 128] = make_float4(a[4 * j], a[4 * j + 1], a[4 * j + 2], a[4 * j + 3]);
      }
      hopper::sync_named(kFixUpBarrier + th.consumer, 128);  // the warpgroup's sums are written
      if (th.ct == 0) flag(self).store(1, cuda::memory_order_release);
      return false;
    }
    if (th.ct == 0)
      for (int b = w.first_sharer; b < self; ++b)
        while (flag(b).load(cuda::memory_order_acquire) == 0) __nanosleep(64);
    hopper::sync_named(kFixUpBarrier + th.consumer, 128);
    for (int b = self - 1; b >= w.first_sharer; --b) {
      const float4* const in = slot(b);
#pragma unroll
      for (int f = 0; f < kSlots; ++f) {
        auto& a = acc[f / kGroups];
        const int j = f % kGroups;
        const float4 v = __ldcg(in + f * 128);
        a[4 * j] += v.x;
        a[4 * j + 1] += v.y;
        a[4 * j + 2] += v.z;
        a[4 * j + 3] += v.w;
      }
    }
    return true;
  }
  static __device__ void barriers_ready() { __syncthreads(); }
  static __device__ void leave() {}
};

// ---- Epilogues: how a consumer's accumulators reach C ----
// Where an item's sums go and how: C, or with K split its range's slice of the workspace.
// ClusterSum's place for a block's sums (the ring of stages, drained by then), and the cluster's
// ranges.
struct ClusterSums {
  char* at;
  int ranges;
};
struct CTarget {
  GemmArgs out;
  bool pairs;   // 8-byte stores of pairs: C's rows allow them
  bool by_tma;  // TMA may store C: beta = 0 and 16-byte-aligned rows, K whole
  const CUtensorMap* map;
  char* staging;
  ClusterSums sums;
};

template <bool RangesInCluster>
__device__ __forceinline__ CTarget c_target(const GemmArgs& g, const KSplit& split, int range, bool c_pairs,
                                            bool c_by_tma, const CUtensorMap* c_map, char* staging,
                                            ClusterSums sums) {
  if (split.count == 1 || RangesInCluster) return {g, c_pairs, c_by_tma, c_map, staging, sums};
  GemmArgs out = g;
  out.c = split.partials + static_cast<std::size_t>(range) * g.m * g.n;
  out.ldc = g.n;
  out.alpha = 1.0F;
  out.beta = 0.0F;
  return {out, g.n % 2 == 0, false, c_map, staging, sums};
}

// Each thread stores its accumulators from registers: pairs of columns as one 8-byte store where
// C's rows allow it, bounds checked in edge tiles only. Swapped, each value goes to its
// transposed place (single floats).
struct RegisterStore {
  static constexpr int kStagingBytes = 0;  // per consumer
  template <class Cfg, class Acc>
  static __device__ __forceinline__ void store(const Acc& acc, const TileOrigin& t, const CTarget& c,
                                               const ConsumerThread& th) {
    store_tile(t.edge, !Cfg::kSwapped && c.pairs, [&](auto checked, auto pairs) {
      constexpr bool kChecked = decltype(checked)::value;
      [[maybe_unused]] constexpr bool kPairs = decltype(pairs)::value;
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kBN / 8; ++j) {
          store_fragment<Cfg, kChecked, kPairs>(c.out, t, th, i, j,
                                                 {acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]});
        }
    });
  }
  // The four sums thread th holds of slice i's 8 columns j: rows r and r + 8, columns col and
  // col + 1.
  template <class Cfg, bool kChecked, bool kPairs>
  static __device__ __forceinline__ void store_fragment(const GemmArgs& out, const TileOrigin& t,
                                                        const ConsumerThread& th, int i, int j, const float4& v) {
    const int r = t.row0 + (th.consumer * Cfg::kMTiles + i) * 64 + th.warp * 16 + th.lane / 4;
    const int col = t.col0 + j * 8 + th.lane % 4 * 2;
    if constexpr (Cfg::kSwapped) {  // (r, col) of C's transpose is C's (col, r)
      store_c<kChecked>(out, col, r, v.x);
      store_c<kChecked>(out, col + 1, r, v.y);
      store_c<kChecked>(out, col, r + 8, v.z);
      store_c<kChecked>(out, col + 1, r + 8, v.w);
    } else {
      store_c2<kChecked, kPairs>(out, r, col, v.x, v.y);
      store_c2<kChecked, kPairs>(out, r + 8, col, v.z, v.w);
    }
  }
  static __device__ void finish(const ConsumerThread&) {}
  // What the producer warps take part in once their copies are issued: nothing here.
  static __device__ void producer_done(const KSplit&) {}
};

// Through shared memory: a consumer writes 64 rows x 32 floats into one of its two staging
// buffers and TMA stores them, while it writes the next 32 columns into the other. Where TMA
// may not store C: from registers onto rows of whole sectors, else the warps store staged rows.
struct TmaStore {
  static constexpr int kBufferBytes = 64 * 128;
  static constexpr int kStagingBytes = 2 * kBufferBytes;  // per consumer
  template <class Cfg, class Acc>
  static __device__ __forceinline__ void store(const Acc& acc, const TileOrigin& t, const CTarget& c,
                                               const ConsumerThread& th) {
    using namespace hopper;
    if (!c.by_tma) {
      // 8-byte pairs fill whole 32-byte sectors where C's rows start on them: stored from
      // registers without a barrier. Otherwise through shared memory, a row at a time.
      const bool whole_sectors = reinterpret_cast<std::uintptr_t>(c.out.c) % 32 == 0 && c.out.ldc % 8 == 0;
      if (c.pairs && whole_sectors) {
        RegisterStore::store<Cfg>(acc, t, c, th);
      } else {
        store_rows<Cfg>(acc, t, c, th);
      }
      return;
    }
    // Thread (warp w, lane l) holds rows 16 w + l / 4 (and 8 below) and, of every 8 columns,
    // 2 (l % 4) and the next. A buffer holds 32 columns as four 64 x 8 boxes of 32-byte rows,
    // so a half-warp's 8-byte writes cover 4 rows = 128 bytes, each bank once: 2 wavefronts a
    // write, the fewest. (In 128-byte rows they would need 8, and 4 with the 128-byte swizzle,
    // which leaves rows r and r ^ 1 on the same banks.) TMA clips the boxes at C's edges.
    char* const own = c.staging + th.consumer * kStagingBytes;
    constexpr int kBoxBytes = 64 * 32;
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i)
#pragma unroll
      for (int chunk = 0; chunk < Cfg::kBN / 32; ++chunk) {
        char* const buffer = own + chunk % 2 * kBufferBytes;
        if (th.ct == 0) wait_store_reads<1>();  // the stores two chunks back have read this buffer
        sync_named(1 + th.consumer, 128);
        stage<Cfg>(acc, i, chunk, c.out.alpha, th, [&](int r, int col) {
          return reinterpret_cast<float2*>(buffer + col / 8 * kBoxBytes + r * 32 + col % 8 * 4);
        });
        fence_shared_for_copies();
        sync_named(1 + th.consumer, 128);
        if (th.ct == 0) {
          const int row = t.row0 + (th.consumer * Cfg::kMTiles + i) * 64;
#pragma unroll
          for (int q = 0; q < 4; ++q)
            tma_store(*c.map, t.col0 + chunk * 32 + q * 8, row, buffer + q * kBoxBytes);
          store_commit();
        }
      }
  }
  // Columns 32 chunk to 32 chunk + 31 of the consumer's slice i, times alpha, into shared
  // memory: the pair of (row r of the slice, column col of the chunk) at pair_at(r, col).
  // Thread (warp w, lane l) holds rows 16 w + l / 4 (and 8 below) and, of every 8 columns,
  // 2 (l % 4) and the next.
  template <class Cfg, class Acc, class PairAt>
  static __device__ __forceinline__ void stage(const Acc& acc, int i, int chunk, float alpha, const ConsumerThread& th,
                                               PairAt&& pair_at) {
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int a = 4 * (chunk * 4 + q) + 2 * h;
        *pair_at(th.warp * 16 + th.lane / 4 + 8 * h, q * 8 + th.lane % 4 * 2) =
            float2{alpha * acc[i][a], alpha * acc[i][a + 1]};
      }
  }

  // The staging buffers live as long as the block.
  static __device__ void finish(const ConsumerThread& th) {
    if (th.ct == 0) hopper::wait_stores<0>();
  }
  static __device__ void producer_done(const KSplit&) {}

  // C's rows not on 32-byte sectors. From registers, a thread's stores cover 8 rows x 4 or 8
  // bytes an instruction, and on such rows each splits its sectors: they ran at a quarter to a
  // half of the aligned ones' speed. So the 64 x 32 chunk is staged with rows 40 floats apart (a
  // half-warp's 8-byte writes then cover the 32 banks once, and a row's 32 floats lie on 32
  // banks), and a warp stores a row of 32 consecutive floats an instruction: 128 bytes, at most
  // 5 sectors whatever C's alignment. A warp's lanes hold the chunk's rows 16 w to 16 w + 15,
  // and the warp stores those rows itself.
  template <class Cfg, class Acc>
  static __device__ __forceinline__ void store_rows(const Acc& acc, const TileOrigin& t, const CTarget& c,
                                                    const ConsumerThread& th) {
    using namespace hopper;
    constexpr int kRowFloats = 40;
    static_assert(64 * kRowFloats * 4 <= kStagingBytes);
    float* const rows = reinterpret_cast<float*>(c.staging + th.consumer * kStagingBytes);
    const GemmArgs& g = c.out;
    const int col_in_chunk = th.lane;
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) {
      const int first_row = t.row0 + (th.consumer * Cfg::kMTiles + i) * 64 + th.warp * 16;
#pragma unroll
      for (int chunk = 0; chunk < Cfg::kBN / 32; ++chunk) {
        // A warp stages and stores only its own 16 rows: the warp's lanes synchronise, not the
        // warpgroup.
        __syncwarp();  // its lanes have stored the rows staged before
        stage<Cfg>(acc, i, chunk, g.alpha, th,
                   [&](int r, int col) { return reinterpret_cast<float2*>(rows + r * kRowFloats + col); });
        __syncwarp();
        const int col = t.col0 + chunk * 32 + col_in_chunk;
#pragma unroll 4
        for (int rr = 0; rr < 16; ++rr) {
          const int row = first_row + rr;
          if (row < g.m && col < g.n) {
            float* const p = g.c + static_cast<std::size_t>(row) * g.ldc + col;
            const float v = rows[(th.warp * 16 + rr) * kRowFloats + col_in_chunk];
            *p = g.beta == 0.0F ? v : v + g.beta * *p;
          }
        }
      }
    }
  }
};

// K's ranges of a tile added on chip (ClusterRanges): each block leaves its sums in its own
// shared memory, then adds a share of the tile over every block's sums, range 0 first, and
// stores it. The order is fixed (bitwise the same from run to run); nothing goes to DRAM but C,
// and no second kernel runs.
struct ClusterSum {
  static constexpr int kStagingBytes = 0;
  template <class Cfg, class Acc>
  static __device__ __forceinline__ void store(const Acc& acc, const TileOrigin& t, const CTarget& c,
                                               const ConsumerThread& th) {
    using namespace hopper;
    if (c.sums.ranges == 1) {
      RegisterStore::store<Cfg>(acc, t, c, th);
      return;
    }
    constexpr int kThreads = Cfg::kConsumers * 128;
    constexpr int kGroups = Cfg::kBN / 8;  // a slice's 8-column groups
    constexpr int kSlots = Cfg::kMTiles * kGroups;  // a thread's fragments of four sums
    static_assert(kSlots * kThreads * 16 <= Cfg::kStages * Cfg::kStageBytes, "the sums fit the ring");
    // Fragment s of thread x at float4 s * threads + x: a warp writes 512 consecutive bytes.
    auto* sums = reinterpret_cast<float4*>(c.sums.at);
    const int x = th.consumer * 128 + th.ct;
    sync_named(1, kThreads);  // every consumer's wgmma has read its last stage
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const auto& a = acc[s / kGroups];
      const int j = s % kGroups;
      sums[s * kThreads + x] = make_float4(a[4 * j], a[4 * j + 1], a[4 * j + 2], a[4 * j + 3]);
    }
    cluster_sync();  // every block's sums are in place (its producer warps arrive in producer_done)
    const int rank = static_cast<int>(cluster_rank());
    store_tile(t.edge, !Cfg::kSwapped && c.pairs, [&](auto checked, auto pairs) {
      for (int at = rank * kThreads + x; at < kSlots * kThreads; at += c.sums.ranges * kThreads) {
        float4 sum = load_from_block(sums + at, 0);
        for (int r = 1; r < c.sums.ranges; ++r) {
          const float4 v = load_from_block(sums + at, static_cast<unsigned>(r));
          sum = make_float4(sum.x + v.x, sum.y + v.y, sum.z + v.z, sum.w + v.w);
        }
        const int s = at / kThreads;
        const int owner = at % kThreads;  // the thread that held the fragment
        const ConsumerThread held{owner / 128, owner % 128, owner % 128 / 32, owner % 32};
        RegisterStore::store_fragment<Cfg, decltype(checked)::value, decltype(pairs)::value>(c.out, t, held,
                                                                                           s / kGroups, s % kGroups, sum);
      }
    });
  }
  static __device__ void finish(const ConsumerThread&) {}
  // The producer warps take part in the cluster barrier above, when the consumers take it.
  static __device__ void producer_done(const KSplit& split) {
    if (split.count > 1) {
      __syncwarp();  // a warp whose one thread issued the copies converges first
      hopper::cluster_sync();
    }
  }
};

template <int Consumers, int MTiles, int BN, int Stages, bool Specialized, class TileScheduler = StaticTiles,
          class TileEpilogue = RegisterStore, bool Swapped = false>
struct WgmmaConfig {
  static constexpr int kConsumers = Consumers;  // warpgroups issuing wgmma
  static constexpr int kMTiles = MTiles;        // 64-row slices of A per consumer
  static constexpr int kBM = 64 * MTiles * Consumers;
  static constexpr int kBN = BN;
  template <class E>
  static constexpr int kBK = 128 / kElemBytes<E>;  // elements of K per stage: one 128-byte swizzle row
  static constexpr int kStages = Stages;
  static constexpr bool kSpecialized = Specialized;
  using Scheduler = TileScheduler;
  using Epilogue = TileEpilogue;
  static constexpr bool kPersistent = Scheduler::kPersistent;
  static constexpr int kClusterM = Scheduler::kClusterM;
  static constexpr bool kRangesInCluster = Scheduler::kRangesInCluster;
  static constexpr bool kStreamK = std::is_same_v<Scheduler, StreamKTiles>;
  static constexpr bool kTmaStore = Epilogue::kStagingBytes > 0;
  static constexpr int kStagingTotal = Epilogue::kStagingBytes * Consumers;
  // The tile is C's transpose's (tf32, B read row-major from registers); kBM runs along N.
  static constexpr bool kSwapped = Swapped;
  static constexpr int kThreads = 128 * (Consumers + (Specialized ? 1 : 0));
  static constexpr int kABytes = kBM * 128;
  static constexpr int kBBlockBytes = 64 * 128;           // 2-byte types: 64 rows of K x 64 columns
  static constexpr int kStageBytes = kABytes + BN * 128;  // B: 128 bytes of K for each column
  // The stages, the staging buffers, 1024 bytes of slack to align them for the swizzle, and the
  // barriers.
  static constexpr std::size_t kSmemBytes =
      static_cast<std::size_t>(kStageBytes) * Stages + kStagingTotal + 1024 + 16 * Stages;
  static_assert(kBM <= 256 && BN % 64 == 0 && (BN == 64 || BN == 128 || BN == 256));
  static_assert(kClusterM == 1 || BN / kClusterM >= 64, "each block of a pair multicasts whole 64-column blocks of B");
  static_assert(Specialized || !kPersistent, "a persistent block needs a producer running ahead");
  static_assert(kClusterM == 1 || kClusterM == 2, "single blocks, or clusters of two");
  static_assert(!Swapped || (kClusterM == 1 && !kTmaStore),
                "the swapped tile stores from registers, unclustered");
  static_assert(kRangesInCluster == std::is_same_v<Epilogue, ClusterSum>,
                "ranges in a cluster are added on chip, and only they");
};

// ---- The main loop ----
// The ring of stages in shared memory, and its barriers: full[s] counts the bytes that landed
// in stage s, empty[s] the consumers (of every block of the cluster) done reading it.
template <class Cfg>
struct StageRing {
  char* stages;
  char* staging;  // the epilogue's buffers
  std::uint64_t* full;
  std::uint64_t* empty;
  __device__ explicit StageRing(char* raw)
      : stages(raw + ((1024 - hopper::shared_address(raw) % 1024) % 1024)),
        staging(stages + Cfg::kStages * Cfg::kStageBytes),
        full(reinterpret_cast<std::uint64_t*>(staging + Cfg::kStagingTotal)),
        empty(full + Cfg::kStages) {}
  __device__ char* stage(int s) const { return stages + s * Cfg::kStageBytes; }
  __device__ void init() const {
    for (int s = 0; s < Cfg::kStages; ++s) {
      hopper::barrier_init(&full[s], 1);
      hopper::barrier_init(&empty[s], Cfg::kConsumers * Cfg::kClusterM);  // every consumer of the cluster
    }
    hopper::barrier_init_fence();
  }
  // A consumer is done with stage s: it goes back to every producer that writes into it.
  __device__ void release(int s) const {
    if constexpr (Cfg::kClusterM > 1) {
#pragma unroll
      for (unsigned r = 0; r < Cfg::kClusterM; ++r) hopper::arrive_in_block(&empty[s], r);
    } else {
      hopper::arrive(&empty[s]);
    }
  }
};

// Copies K-step `step` of tile t into the ring as the block's it-th step: stage it % Stages, in
// its (it / Stages)-th phase. The copy engine zero-fills what lies past the matrices' edges.
template <class Cfg, class E>
struct StageCopier {
  const CUtensorMap& a_map;
  const CUtensorMap& b_map;
  const StageRing<Cfg>& ring;
  __device__ void issue(const TileOrigin& t, int step, int it) const {
    using namespace hopper;
    constexpr int kBK = Cfg::template kBK<E>;
    const int s = it % Cfg::kStages;
    char* a_tile = ring.stage(s);
    char* b_tile = a_tile + Cfg::kABytes;
    std::uint64_t* full = &ring.full[s];
    arrive_expect_bytes(full, Cfg::kStageBytes);
    if constexpr (Cfg::kSwapped) {  // B's tile: 32 x 32 boxes, 32 rows of K by 32 columns
#pragma unroll
      for (int j = 0; j < Cfg::kBM / 32; ++j)
        tma_load(a_tile + j * 4096, a_map, t.row0 + 32 * j, step * kBK, full);
    } else if constexpr (kAMMajor<E>) {  // A stored K x M: a box of 64 rows of K for each slice
#pragma unroll
      for (int j = 0; j < Cfg::kBM / 64; ++j) tma_load(a_tile + j * 64 * 128, a_map, t.row0 + 64 * j, step * kBK, full);
    } else {
      tma_load(a_tile, a_map, step * kBK, t.row0, full);
    }
    if constexpr (Cfg::kClusterM > 1) {
      // This block's share of B, written into every block of the cluster.
      constexpr int kShare = Cfg::kBN / Cfg::kClusterM;
      constexpr auto kAll = static_cast<std::uint16_t>((1U << Cfg::kClusterM) - 1);
      const int first = static_cast<int>(cluster_rank()) * kShare;
      if constexpr (kBKMajor<E>) {
        tma_load_multicast(b_tile + first * 128, b_map, step * kBK, t.col0 + first, full, kAll);
      } else {
#pragma unroll
        for (int j = 0; j < kShare / 64; ++j)
          tma_load_multicast(b_tile + (first / 64 + j) * Cfg::kBBlockBytes, b_map, t.col0 + first + 64 * j,
                             step * kBK, full, kAll);
      }
    } else if constexpr (kBKMajor<E>) {
      tma_load(b_tile, b_map, step * kBK, t.col0, full);
    } else {
#pragma unroll
      for (int j = 0; j < Cfg::kBN / 64; ++j)
        tma_load(b_tile + j * Cfg::kBBlockBytes, b_map, t.col0 + 64 * j, step * kBK, full);
    }
  }
};

// The producer (specialised kernels): one thread issues every copy of the block's items,
// refilling a stage once every consumer that reads it has handed it back.
template <class Cfg, class E>
__device__ __forceinline__ void produce(typename Cfg::Scheduler work, const StageCopier<Cfg, E>& copier) {
  int it = 0;
  for (WorkItem w; work.next(w);) {
    const StepRange r = w.steps;
    for (int step = 0; step < r.count; ++step, ++it) {
      if (it >= Cfg::kStages) {
        hopper::wait<(Cfg::kClusterM > 1)>(&copier.ring.empty[it % Cfg::kStages],
                                           (it / Cfg::kStages - 1) & 1);
      }
      copier.issue(w.tile, r.first + step, it);
    }
  }
}

// One K-step of a consumer's slices of A against B's tile, both read by wgmma from the stage.
template <class Cfg, class E, class Acc>
__device__ __forceinline__ void multiply_from_shared(Acc& acc, const char* stage, int consumer) {
  using namespace hopper;
  const char* a_tile = stage + consumer * Cfg::kMTiles * 64 * 128;
  const char* b_tile = stage + Cfg::kABytes;
  fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {  // 32 bytes of K each
    const std::uint64_t b = kBKMajor<E> ? descriptor(b_tile + kk * 32, 16, 1024)
                                       : descriptor(b_tile + kk * 2048, Cfg::kBBlockBytes, 1024);
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) {
      // A slice is 64 rows x 128 bytes of K, or M-major 64 rows of K x 128 bytes of M.
      const char* slice = a_tile + i * 64 * 128;
      const std::uint64_t a = kAMMajor<E> ? descriptor(slice + kk * 2048, 64 * 128, 1024) : descriptor(slice + kk * 32, 16, 1024);
      hopper::Wgmma<Cfg::kBN, E>::mma(acc[i], a, b);
    }
  }
}

// Swapped tiles: one K-step of a consumer's slices, wgmma's A operand (B's tile, 32 x 32 boxes
// of 128-byte rows of N, 128-byte swizzled) read into `fragments`, then four k8 wgmma each. The
// caller has waited for the batch that last read the registers.
// A thread's rows of the slice lie in one box, 8 columns apart; row k of a box holds column
// chunk c (4 floats) at chunk c ^ (k % 8). Two lanes share each bank: 2 wavefronts a load.
template <class Cfg, class Acc>
__device__ __forceinline__ void multiply_from_registers(Acc& acc, unsigned (&fragments)[Cfg::kMTiles][4][4],
                                                        const char* stage, int consumer, int warp, int lane) {
  using namespace hopper;
  const char* b_of_a = stage + Cfg::kABytes;  // A's tile, K-major: wgmma's B operand
  const int quarter = lane % 4;               // A's column (K) of the fragment, and 4 to the right
#pragma unroll
  for (int i = 0; i < Cfg::kMTiles; ++i) {
    const int row = (consumer * Cfg::kMTiles + i) * 64 + warp * 16 + lane / 4;  // along N
    const char* box = stage + row / 32 * 4096 + row % 4 * 4;
    const int chunk = row % 32 / 4;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int k = kk * 8 + quarter + 4 * half;  // k % 8 == quarter + 4 * half
        const char* line = box + k * 128;
        fragments[i][kk][2 * half] = *reinterpret_cast<const unsigned*>(line + ((chunk ^ (k % 8)) << 4));
        fragments[i][kk][2 * half + 1] =
            *reinterpret_cast<const unsigned*>(line + (((chunk + 2) ^ (k % 8)) << 4));
      }
  }
  fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i)
      WgmmaRegisterA<Cfg::kBN>::mma(acc[i], fragments[i][kk], descriptor(b_of_a + kk * 32, 16, 1024));
}

// A consumer's K loop over one item's range: wait for each stage, multiply, and hand the stage
// back. Specialised, to the producer once the next step's batch is issued; otherwise the
// block's first thread refills it once every warp is done with it.
template <class Cfg, class E, class Acc>
__device__ __forceinline__ void accumulate(Acc& acc, unsigned (&fragments)[Cfg::kMTiles][4][4],
                                           const StageCopier<Cfg, E>& copier, const TileOrigin& t,
                                           StepRange r, int& it, const ConsumerThread& th) {
  using namespace hopper;
  const StageRing<Cfg>& ring = copier.ring;
  if constexpr (!Cfg::kSpecialized) {
    if (threadIdx.x == 0)
      for (int step = 0; step < min(Cfg::kStages, r.count); ++step)
        copier.issue(t, r.first + step, it + step);
  }
  for (int step = 0; step < r.count; ++step, ++it) {
    const int s = it % Cfg::kStages;
    wait(&ring.full[s], (it / Cfg::kStages) & 1);
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
    if constexpr (Cfg::kSwapped) {
      // The previous step's batch reads the registers about to be loaded: it ends first. The
      // other consumer's batches keep the tensor cores busy meanwhile.
      wait_batches<0>();
      multiply_from_registers<Cfg>(acc, fragments, ring.stage(s), th.consumer, th.warp, th.lane);
    } else {
      multiply_from_shared<Cfg, E>(acc, ring.stage(s), th.consumer);
    }
    commit();
    if constexpr (Cfg::kSpecialized) {
      wait_batches<1>();  // the previous step's batch is done: its stage goes back to the producer
      if (step > 0 && th.ct == 0) ring.release((it - 1) % Cfg::kStages);
    } else {
      wait_batches<0>();
      __syncthreads();  // every warp has finished reading stage s
      if (threadIdx.x == 0 && step + Cfg::kStages < r.count)
        copier.issue(t, r.first + step + Cfg::kStages, it + Cfg::kStages);
    }
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
  }
  wait_batches<0>();
#pragma unroll
  for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
  if constexpr (Cfg::kSpecialized) {
    if (th.ct == 0) ring.release((it - 1) % Cfg::kStages);  // the range's last stage
  }
}

// The kernel: the producer warpgroup (specialised) copies, the consumers multiply and store,
// each walking the work items its scheduler gives it.
template <class Cfg, class E>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                      const __grid_constant__ CUtensorMap c_map, GemmArgs g, int group, bool c_pairs,
                      bool c_by_tma, KSplit split) {
  using Scheduler = typename Cfg::Scheduler;
  extern __shared__ __align__(1024) char smem_raw[];
  const StageRing<Cfg> ring(smem_raw);
  if (threadIdx.x == 0) ring.init();
  Scheduler::barriers_ready();
  const int all_steps = (g.k + Cfg::template kBK<E> - 1) / Cfg::template kBK<E>;
  Scheduler work(Cfg::kSwapped ? g.n : g.m, Cfg::kSwapped ? g.m : g.n, Cfg::kBM, Cfg::kBN, group, split,
                 all_steps);
  const StageCopier<Cfg, E> copier{a_map, b_map, ring};
  if constexpr (Cfg::kSpecialized) {
    if (threadIdx.x < 128) {  // the producer warpgroup
      hopper::release_registers<40>();
      if (threadIdx.x == 0) produce(work, copier);
      Cfg::Epilogue::producer_done(split);
      Scheduler::leave();
      return;
    }
    hopper::claim_registers<232>();
  }
  const int tid = static_cast<int>(threadIdx.x);
  const ConsumerThread th{Cfg::kSpecialized ? tid / 128 - 1 : 0, tid % 128, tid % 128 / 32, tid % 32};
  unsigned fragments[Cfg::kMTiles][4][4];  // swapped: wgmma's A operand, loaded from the stage
  int it = 0;
  for (WorkItem w; work.next(w);) {
    float acc[Cfg::kMTiles][Cfg::kBN / 2] = {};
    accumulate(acc, fragments, copier, w.tile, w.steps, it, th);
    if (!work.template settle<Cfg>(acc, w, split, th)) continue;  // stream-K: another block ends the tile
    Cfg::Epilogue::template store<Cfg>(
        acc, w.tile,
        c_target<Cfg::kRangesInCluster>(g, split, w.range, c_pairs, c_by_tma, &c_map, ring.staging,
                                        {ring.stages, split.count}),
        th);
  }
  Cfg::Epilogue::finish(th);
  Scheduler::leave();
}

// SMs of the current device, for persistent grids.
inline int device_sms() {
  int device = 0;
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// A launch of `blocks` blocks of the kernel in clusters of `size` along x (Cfg::kClusterM, or
// ClusterRanges' ranges). Not copyable: the configuration points at its own attribute.
template <class Cfg>
struct ClusterLaunch {
  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config{};
  ClusterLaunch(unsigned blocks, cudaStream_t stream, int size = Cfg::kClusterM) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim = {static_cast<unsigned>(size), 1, 1};
    config.attrs = &cluster;
    config.numAttrs = 1;
    config.blockDim = dim3(Cfg::kThreads);
    config.gridDim = dim3(blocks);
    config.dynamicSmemBytes = Cfg::kSmemBytes;
    config.stream = stream;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// The kernel, allowed its shared memory (more than the default 48 KiB): before its first launch
// and before any occupancy query, which counts with the allowance.
template <class Cfg, class E>
void allow_shared_memory() {
  smemlab::detail::allow_dynamic_smem(wgmma_gemm_kernel<Cfg, E>, Cfg::kSmemBytes);
}

// Clusters of Cfg::kClusterM blocks of the kernel that can be resident at once: fewer than
// SMs / kClusterM where a GPU's SMs do not pair up within its processing clusters.
template <class Cfg, class E>
int resident_clusters() {
  allow_shared_memory<Cfg, E>();
  static smemlab::detail::PerDevice<int> clusters;
  return clusters.get([] {
    const ClusterLaunch<Cfg> one(Cfg::kClusterM, nullptr);
    int count = 0;
    SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&count, wgmma_gemm_kernel<Cfg, E>, &one.config));
    if (count < 1) throw std::runtime_error("gemm: no cluster of the Hopper kernel fits on this GPU");
    return count;
  });
}

template <class Cfg, class E>
void launch_wgmma_with(const GemmArgs& g, cudaStream_t stream, int group, KSplit split) {
  allow_shared_memory<Cfg, E>();
  constexpr int kBK = Cfg::template kBK<E>;
  // tf32: g.b is B's transpose, N x K; swapped, wgmma's A is B (32 x 32 boxes) and its B is A.
  // A M-major (stored K x M): boxes of 64 rows of K x 64 of M.
  const CUtensorMap a_map = Cfg::kSwapped  ? tensor_map(g.b, g.input, g.k, g.n, g.ldb, kBK, 32)
                            : kAMMajor<E> ? tensor_map(g.a, g.input, g.k, g.m, g.lda, kBK, 64)
                                          : tensor_map(g.a, g.input, g.m, g.k, g.lda, Cfg::kBM, kBK);
  const CUtensorMap b_map = Cfg::kSwapped ? tensor_map(g.a, g.input, g.m, g.k, g.lda, Cfg::kBN, kBK)
                            : kBKMajor<E>
                                ? tensor_map(g.b, g.input, g.n, g.k, g.ldb, Cfg::kBN / Cfg::kClusterM, kBK)
                                : tensor_map(g.b, g.input, g.k, g.n, g.ldb, kBK, 64);
  // TMA stores C where it can: beta = 0 (C is not read) and rows 16-byte aligned; partial sums
  // are stored from registers.
  const bool c_by_tma = Cfg::kTmaStore && split.count == 1 && g.beta == 0.0F &&
                        reinterpret_cast<std::uintptr_t>(g.c) % 16 == 0 && g.ldc % 4 == 0;
  const CUtensorMap c_map =
      c_by_tma ? tensor_map(g.c, DType::f32, g.m, g.n, g.ldc, 64, 8, CU_TENSOR_MAP_SWIZZLE_NONE)
               : CUtensorMap{};
  const int rows = Cfg::kSwapped ? g.n : g.m;
  const int cols = Cfg::kSwapped ? g.m : g.n;
  const long long items =
      static_cast<long long>((rows + Cfg::kBM * Cfg::kClusterM - 1) / (Cfg::kBM * Cfg::kClusterM)) *
      ((cols + Cfg::kBN - 1) / Cfg::kBN);
  if (items * Cfg::kClusterM * split.count > 0x7FFFFFFFLL)
    throw std::invalid_argument("gemm: C has more tiles than a grid holds");
  if constexpr (Cfg::kRangesInCluster) {
    if (split.count > kMaxClusterRanges)
      throw std::logic_error("gemm: a cluster adds at most " + std::to_string(kMaxClusterRanges) + " ranges");
    const ClusterLaunch<Cfg> launch(static_cast<unsigned>(items * split.count), stream, split.count);
    SMEMLAB_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, wgmma_gemm_kernel<Cfg, E>, a_map, b_map, c_map, g, group,
                                          c_pairs_aligned(g), c_by_tma, split));
  } else if constexpr (Cfg::kClusterM == 1) {
    const long long work = items * split.count;
    const long long blocks = Cfg::kStreamK      ? split.blocks
                             : Cfg::kPersistent ? std::min<long long>(work, device_sms())
                                                : work;
    // Stream-K's flags zeroed just before the kernel, its tensor maps encoded: the GPU waits on no
    // host work between the two.
    if (Cfg::kStreamK && split.stream_tiles > 0)
      SMEMLAB_CUDA_CHECK(cudaMemsetAsync(split.flags, 0, sizeof(int) * Cfg::kConsumers * split.stream_blocks, stream));
    wgmma_gemm_kernel<Cfg, E><<<static_cast<unsigned>(blocks), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
        a_map, b_map, c_map, g, group, c_pairs_aligned(g), c_by_tma, split);
    SMEMLAB_LAUNCH_CHECK();
  } else {
    if (split.count != 1) throw std::logic_error("gemm: clusters do not split K");
    // As many clusters as fit at once, each walking groups of kClusterM tiles.
    const long long clusters = std::min<long long>(items, resident_clusters<Cfg, E>());
    const ClusterLaunch<Cfg> launch(static_cast<unsigned>(clusters * Cfg::kClusterM), stream);
    SMEMLAB_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, wgmma_gemm_kernel<Cfg, E>, a_map, b_map, c_map, g,
                                          group, c_pairs_aligned(g), c_by_tma, split));
  }
}

// Operands TMA cannot read (rows not 16-byte aligned) are repacked first; tf32 reads B's
// transpose, except on swapped tiles (tf32 only). ReadsStored (the default call's tiles): B
// stored transposed (N x K) is read as stored, K-major, in every type, and A stored transposed
// (K x M) M-major in bf16 and half; without it such operands are given row-major copies by the
// caller (with_row_major_operands), as Aᵀ in tf32 is. With splits > 1, K's steps are divided into that many ranges (fewer
// where K has fewer steps), whose partial sums go to the workspace after the repacked operands
// and are added in range order by a second kernel.
// Stream-K (StreamKTiles): the tiles' K-steps dealt out over `sms` blocks (0: the device's
// SMs) as stream_k_plan says; the blocks' slots for their sums and their flags go where the
// partial sums would, and launch_wgmma_with zeroes the flags on the stream before the kernel.
template <class Cfg, bool ReadsStored = false>
void launch_wgmma(const GemmArgs& args, const LaunchContext& ctx, int group, int splits = 1, int sms = 0) {
  if (Cfg::kSwapped && args.input != DType::tf32) throw std::logic_error("gemm: swapped tiles are for tf32");
  const bool b_k_major = !Cfg::kSwapped && (args.input == DType::tf32 || (ReadsStored && args.transpose_b));
  const bool a_m_major = ReadsStored && !Cfg::kSwapped && args.transpose_a && args.input != DType::tf32;
  const AlignedOperands aligned(args, ctx, b_k_major ? BOperand::transposed : BOperand::row_major,
                                a_m_major ? AOperand::transposed : AOperand::row_major);
  const KRanges ranges = k_ranges(args.k, k_step(args.input), splits);
  KSplit split{ranges.count, ranges.steps_per_range};
  std::optional<PartialSums> partials;
  if constexpr (Cfg::kStreamK) {
    const long long tiles =
        static_cast<long long>((args.m + Cfg::kBM - 1) / Cfg::kBM) * ((args.n + Cfg::kBN - 1) / Cfg::kBN);
    const StreamKPlan plan = stream_k_plan(tiles, ranges.steps_per_range, sms > 0 ? sms : device_sms());
    split = {1, ranges.steps_per_range, nullptr, plan.blocks, plan.stream_tiles, plan.stream_blocks, nullptr};
    if (plan.stream_tiles > 0) {
      const std::size_t bytes = stream_k_bytes(plan.stream_blocks, Cfg::kBM, Cfg::kBN);
      split.partials = partials.emplace(args, bytes, aligned.workspace_used(), ctx.stream).data();
      split.flags = reinterpret_cast<int*>(reinterpret_cast<char*>(split.partials) +
                                           stream_k_slots_bytes(plan.stream_blocks, Cfg::kBM, Cfg::kBN));
    }
  } else if (ranges.count > 1 && !Cfg::kRangesInCluster) {
    split.partials =
        partials.emplace(args, partial_sums_bytes(args, ranges.count), aligned.workspace_used(), ctx.stream).data();
  }
  with_input_type(args.input, [&](auto e) {
    using E = decltype(e);
    if constexpr (ReadsStored && !kIsTf32<E>) {
      if (a_m_major && b_k_major) {
        launch_wgmma_with<Cfg, MMajorA<KMajorB<E>>>(aligned.args(), ctx.stream, group, split);
      } else if (a_m_major) {
        launch_wgmma_with<Cfg, MMajorA<E>>(aligned.args(), ctx.stream, group, split);
      } else if (b_k_major) {
        launch_wgmma_with<Cfg, KMajorB<E>>(aligned.args(), ctx.stream, group, split);
      }
      if (a_m_major || b_k_major) return;
    }
    if constexpr (!Cfg::kSwapped || kIsTf32<E>) launch_wgmma_with<Cfg, E>(aligned.args(), ctx.stream, group, split);
  });
  if (partials && !Cfg::kStreamK) sum_partials(split.partials, ranges.count, args, ctx.stream);
}

}  // namespace smemlab::tensor_matmul::detail
