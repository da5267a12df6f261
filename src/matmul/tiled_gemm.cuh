#pragma once
// The SGEMM kernel of steps 09-12, written once and configured by a tile policy (as CUB keeps
// tuning policies apart from algorithms). Layers: block tile (BM x BN, K-steps of BK) ->
// warp tile (WM x WN) -> thread tile (TM x TN, made of 4x4 pieces spread so that a warp's
// fragment reads are contiguous).
// - Copies: cp.async, global -> shared without passing through registers. A is copied 4 bytes
//   at a time into a transposed tile a[k][m] whose rows are padded to BM + 4 floats: a warp
//   copies 4 rows x 8 k, and 4k + m puts those 32 lanes in 32 banks. B is copied 16 bytes at a
//   time when its rows are aligned (else 4, or B is first copied to aligned rows in the
//   workspace when the choice says so). Out-of-range elements are zero-filled by the copy
//   itself (src-size 0), and only edge blocks and the last partial K-step check bounds.
// - Stages: with Stages = 1 a block copies, waits, computes and waits again; with Stages > 1
//   the copies of the next Stages - 1 K-steps are in flight while one is computed, behind one
//   barrier per K-step.
// - Fragments are double-buffered in registers: the values for k + 1 are read from shared
//   memory while the FMAs of k run.
// - Rasterisation: consecutive blocks walk down a group of `group` block-rows before moving
//   right, so the blocks resident together share their A and B tiles in L2.
// - Split K: some tiles are divided among `slices` blocks, each an equal share of K. A block
//   holding part of a tile writes its partial sums to the workspace, and the last of the
//   tile's blocks to finish (a counter per tile says which) adds the parts in slice order and
//   stores C. When every block of a split-K launch fits on the GPU at once, the launch is
//   cooperative (the driver guarantees that they are all resident) and every block of a tile
//   waits for the others, then sums a share of the tile: the sum is spread over the tile's
//   blocks instead of serialised in one. Split-K divides every tile; the last-wave split runs
//   whole tiles in full waves (one block per tile) and then, in a second launch, divides only
//   the tiles of the last, partial wave, so that they fill the GPU too.
#include <cuda/atomic>

#include <algorithm>
#include <cstddef>

#include "core/copy_rows.hpp"
#include "core/cp_async.cuh"
#include "core/raster.cuh"
#include "matmul/gemm_device.cuh"
#include "matmul/workspace.hpp"
#include "smemlab/launch.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int Stages, int MinBlocks,
          bool Serpentine = false>
struct TileConfig {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kWM = WM, kWN = WN, kTM = TM, kTN = TN;
  static constexpr int kStages = Stages;
  static constexpr int kMinBlocks = MinBlocks;  // per SM, for __launch_bounds__
  // FMA order in an outer product: row by row, odd rows backwards, so that consecutive FMAs
  // share an operand at every row change too (the operand reuse cache) instead of none.
  static constexpr bool kSerpentine = Serpentine;
  static constexpr int kThreads = 32 * (BM / WM) * (BN / WN);
  static constexpr int kLaneRows = WM / TM;  // lanes of a warp down its tile
  static constexpr int kLaneCols = WN / TN;  // and across
  static constexpr int kARow = BM + 4;       // floats per row of the transposed A tile
  static constexpr int kStageFloats = BK * kARow + BK * BN;
  static constexpr std::size_t kSmemBytes = sizeof(float) * kStageFloats * Stages;
  // Registers a thread may use; at 128 (two blocks of 256 threads per SM) the interior copy
  // pointers would spill, so those configurations recompute addresses instead.
  static constexpr int kRegisterBudget = 65536 / (kThreads * MinBlocks) < 255 ? 65536 / (kThreads * MinBlocks) : 255;
  static constexpr bool kInteriorPointers = kRegisterBudget > 128;
  // Likewise, reading the next K-step's first fragments across the barrier (see main_loop)
  // keeps two steps' fragments live: only above 128 registers.
  static constexpr bool kFragmentsAcrossSteps = kRegisterBudget > 128;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % TM == 0 && WN % TN == 0);
  static_assert(kLaneRows * kLaneCols == 32, "a warp tile is 32 thread tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 pieces");
  static_assert(BK % 8 == 0 && (BM * BK) % kThreads == 0, "A is copied in runs of 8 k");
  static_assert((BK * BN) % (4 * kThreads) == 0, "each thread copies whole float4s of B");
  static_assert(Stages >= 1);
};

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
  int* counters = nullptr;     // per divided tile: blocks done with it; zero between launches
  float4* partials = nullptr;  // per block of a divided tile: BM x BN partial sums
};

using smemlab::detail::cp_async16;
using smemlab::detail::cp_async4;
using smemlab::detail::cp_async_commit;
using smemlab::detail::cp_async_wait;

// Copies the K-step starting at k0 into one stage. CheckMN: the block reaches past C's edge;
// CheckK: the step reaches past k_end. Unchecked copies compute no predicates at all.
template <class Cfg, bool VectorB, bool CheckMN, bool CheckK>
__device__ __forceinline__ void copy_k_step(const GemmArgs& g, int row0, int col0, int k0,
                                            int k_end, float* a_stage, float* b_stage) {
  const int tid = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int i = 0; i < Cfg::kBM * Cfg::kBK / Cfg::kThreads; ++i) {
    // 8 consecutive k of one row per 8 lanes: 32-byte global runs, 32 distinct banks.
    const int e = tid + i * Cfg::kThreads;
    const int r = e / 8 % Cfg::kBM;
    const int k = e / (8 * Cfg::kBM) * 8 + e % 8;
    const bool valid = (!CheckMN || row0 + r < g.m) && (!CheckK || k0 + k < k_end);
    const float* src = valid ? g.a + static_cast<std::size_t>(row0 + r) * g.lda + k0 + k : g.a;
    cp_async4(a_stage + k * Cfg::kARow + r, src, valid);
  }
  if constexpr (VectorB) {
#pragma unroll
    for (int i = 0; i < Cfg::kBK * Cfg::kBN / (4 * Cfg::kThreads); ++i) {
      const int e = tid + i * Cfg::kThreads;
      const int r = e / (Cfg::kBN / 4);
      const int c = e % (Cfg::kBN / 4) * 4;
      int bytes = 16;
      if constexpr (CheckMN) bytes = min(16, max(0, 4 * (g.n - col0 - c)));
      if constexpr (CheckK) bytes = k0 + r < k_end ? bytes : 0;
      const float* src = bytes > 0 ? g.b + static_cast<std::size_t>(k0 + r) * g.ldb + col0 + c : g.b;
      cp_async16(b_stage + r * Cfg::kBN + c, src, bytes);
    }
  } else {
#pragma unroll
    for (int i = 0; i < Cfg::kBK * Cfg::kBN / Cfg::kThreads; ++i) {
      const int e = tid + i * Cfg::kThreads;
      const int r = e / Cfg::kBN;
      const int c = e % Cfg::kBN;
      const bool valid = (!CheckMN || col0 + c < g.n) && (!CheckK || k0 + r < k_end);
      const float* src = valid ? g.b + static_cast<std::size_t>(k0 + r) * g.ldb + col0 + c : g.b;
      cp_async4(b_stage + r * Cfg::kBN + c, src, valid);
    }
  }
}

// The interior path's copies: a block wholly inside C copying a full K-step needs no
// predicates, and its addresses change only by a constant per K-step. Computed once per
// block, they cost one pointer add per copy instead of the row and column arithmetic of
// copy_k_step (which the compiler otherwise redoes at every step).
template <class Cfg, bool VectorB>
struct InteriorCopy {
  static constexpr int kARowsPerPass = Cfg::kThreads / 8;  // A rows one pass of the block covers
  static constexpr int kBWidth = VectorB ? 4 : 1;
  static constexpr int kBLanesPerRow = Cfg::kBN / kBWidth;
  static_assert(Cfg::kThreads % kBLanesPerRow == 0, "a pass of the block covers whole B rows");
  static_assert(Cfg::kBM % kARowsPerPass == 0, "passes of the block tile A rows evenly");
  const float* a;  // this thread's first A element of the current K-step
  const float* b;
  int a_dst;  // this thread's offsets within a stage
  int b_dst;

  __device__ __forceinline__ InteriorCopy(const GemmArgs& g, int row0, int col0, int k_begin) {
    const int tid = static_cast<int>(threadIdx.x);
    a = g.a + static_cast<std::size_t>(row0 + tid / 8) * g.lda + k_begin + tid % 8;
    b = g.b + static_cast<std::size_t>(k_begin + tid / kBLanesPerRow) * g.ldb + col0 +
        tid % kBLanesPerRow * kBWidth;
    a_dst = tid % 8 * Cfg::kARow + tid / 8;
    b_dst = tid / kBLanesPerRow * Cfg::kBN + tid % kBLanesPerRow * kBWidth;
  }

  // The strides between passes are read from the kernel parameters at each use: they cost
  // no registers, which the 128-register configurations have none of to spare.
  __device__ __forceinline__ void copy(const GemmArgs& g, float* a_stage, float* b_stage) const {
#pragma unroll
    for (int i = 0; i < Cfg::kBM * Cfg::kBK / Cfg::kThreads; ++i) {
      // Pass i covers rows i * kARowsPerPass on, wrapping to the next 8 k after kBM rows.
      constexpr int kPassesPerK8 = Cfg::kBM / kARowsPerPass;
      const int row = i % kPassesPerK8;
      const int k8 = i / kPassesPerK8 * 8;
      cp_async4(a_stage + a_dst + k8 * Cfg::kARow + row * kARowsPerPass, a + static_cast<std::size_t>(row * kARowsPerPass) * g.lda + k8, true);
    }
#pragma unroll
    for (int i = 0; i < Cfg::kBK * Cfg::kBN / (kBWidth * Cfg::kThreads); ++i) {
      float* dst = b_stage + b_dst + i * Cfg::kThreads * kBWidth;
      const float* src = b + static_cast<std::size_t>(i * (Cfg::kThreads / kBLanesPerRow)) * g.ldb;
      if constexpr (VectorB) {
        cp_async16(dst, src, 16);
      } else {
        cp_async4(dst, src, true);
      }
    }
  }

  __device__ __forceinline__ void advance(const GemmArgs& g) {
    a += Cfg::kBK;
    b += static_cast<std::size_t>(Cfg::kBK) * g.ldb;
  }
};

// A thread's fragments for one k: TM values of A and TN of B, read as float4 from the pieces
// it owns (4 rows, then kLaneRows * 4 rows further down, and so on).
template <class Cfg>
struct Fragments {
  float4 a[Cfg::kTM / 4];
  float4 b[Cfg::kTN / 4];
};

template <class Cfg>
__device__ __forceinline__ void read_fragments(Fragments<Cfg>& f, const float* a_k,
                                               const float* b_k) {
#pragma unroll
  for (int i = 0; i < Cfg::kTM / 4; ++i)
    f.a[i] = *reinterpret_cast<const float4*>(a_k + i * Cfg::kLaneRows * 4);
#pragma unroll
  for (int j = 0; j < Cfg::kTN / 4; ++j)
    f.b[j] = *reinterpret_cast<const float4*>(b_k + j * Cfg::kLaneCols * 4);
}

__device__ __forceinline__ float lane_of(const float4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;  // i is a constant after unrolling
}

template <class Cfg>
__device__ __forceinline__ void outer_product(float (&acc)[Cfg::kTM][Cfg::kTN],
                                              const Fragments<Cfg>& f) {
#pragma unroll
  for (int i = 0; i < Cfg::kTM; ++i)
#pragma unroll
    for (int jj = 0; jj < Cfg::kTN; ++jj) {
      const int j = Cfg::kSerpentine && i % 2 == 1 ? Cfg::kTN - 1 - jj : jj;
      acc[i][j] = fmaf(lane_of(f.a[i / 4], i % 4), lane_of(f.b[j / 4], j % 4), acc[i][j]);
    }
}

// All K-steps of one stage: BK outer products, fragments for k + 1 read during k's FMAs.
template <class Cfg>
__device__ __forceinline__ void multiply_stage(float (&acc)[Cfg::kTM][Cfg::kTN],
                                               const float* a_frag0, const float* b_frag0) {
  Fragments<Cfg> f[2];
  read_fragments<Cfg>(f[0], a_frag0, b_frag0);
#pragma unroll
  for (int kk = 0; kk < Cfg::kBK; ++kk) {
    if (kk + 1 < Cfg::kBK)
      read_fragments<Cfg>(f[(kk + 1) % 2], a_frag0 + (kk + 1) * Cfg::kARow,
                          b_frag0 + (kk + 1) * Cfg::kBN);
    outer_product<Cfg>(acc, f[kk % 2]);
  }
}

// Where this thread's first fragment lies: its warp's tile, then its lane's 4 rows (columns).
// With 4 x 8 lanes, lane rows vary fastest (4 rows x 2 columns per quarter-warp): B reads cost
// 2 wavefronts (`smemlab banks '(tx/4)%8' --width 16`) and A reads 4 ('tx%4'), against 4 and 2
// with row-major numbering ('tx%8', 'tx/8'). That pays with 8x16 thread tiles, which read B
// twice as often as A (measured: 3.33 -> 2.67 wavefronts per LDS.128); 8x8 tiles break even.
template <class Cfg>
__device__ __forceinline__ int lane_row(int lane) {
  return Cfg::kLaneRows <= 4 ? lane % Cfg::kLaneRows : lane / Cfg::kLaneCols;
}

template <class Cfg>
__device__ __forceinline__ int lane_col(int lane) {
  return Cfg::kLaneRows <= 4 ? lane / Cfg::kLaneRows : lane % Cfg::kLaneCols;
}

template <class Cfg>
__device__ __forceinline__ int fragment_row(int thread = static_cast<int>(threadIdx.x)) {
  return thread / 32 / (Cfg::kBN / Cfg::kWN) * Cfg::kWM + lane_row<Cfg>(thread % 32) * 4;
}

template <class Cfg>
__device__ __forceinline__ int fragment_col(int thread = static_cast<int>(threadIdx.x)) {
  return thread / 32 % (Cfg::kBN / Cfg::kWN) * Cfg::kWN + lane_col<Cfg>(thread % 32) * 4;
}

using smemlab::detail::TileOrigin;

__device__ __forceinline__ TileOrigin tile_origin(const GemmArgs& g, int bm, int bn, int group) {
  return smemlab::detail::rastered_tile(g.m, g.n, bm, bn, group);
}

// Stages = 1, and the pipeline of configurations held to 128 registers: one barrier per step
// at its start; a partial K-step comes last.
template <class Cfg, bool VectorB, bool CheckMN>
__device__ __forceinline__ void main_loop_at_step_start(const GemmArgs& g, const TileOrigin& t,
                                                        int k_begin, int k_end, float* smem,
                                                        float (&acc)[Cfg::kTM][Cfg::kTN]) {
  const int a_frag = fragment_row<Cfg>();  // offsets in a row of the A and B tiles
  const int b_frag = fragment_col<Cfg>();
  const int steps = (k_end - k_begin + Cfg::kBK - 1) / Cfg::kBK;

  // Copies are issued in step order, so the interior path's pointers advance once per copy.
  struct NoInteriorCopy {
    __device__ NoInteriorCopy(const GemmArgs&, int, int, int) {}
  };
  using Interior = std::conditional_t<Cfg::kInteriorPointers && !CheckMN, InteriorCopy<Cfg, VectorB>,
                                      NoInteriorCopy>;
  [[maybe_unused]] Interior interior(g, t.row0, t.col0, k_begin);
  const int full_steps = (k_end - k_begin) / Cfg::kBK;  // steps that need no K check
  const auto copy = [&](int step, int stage) {
    const int k0 = k_begin + step * Cfg::kBK;
    float* a_stage = smem + stage * Cfg::kStageFloats;
    float* b_stage = a_stage + Cfg::kBK * Cfg::kARow;
    if (step < full_steps) {
      if constexpr (CheckMN || !Cfg::kInteriorPointers) {
        copy_k_step<Cfg, VectorB, CheckMN, false>(g, t.row0, t.col0, k0, k_end, a_stage, b_stage);
      } else {
        interior.copy(g, a_stage, b_stage);
        interior.advance(g);
      }
    } else {
      copy_k_step<Cfg, VectorB, CheckMN, true>(g, t.row0, t.col0, k0, k_end, a_stage, b_stage);
    }
  };

  smemlab::detail::pipelined_steps<Cfg::kStages>(steps, copy, [&](int stage) {
    const float* a_stage = smem + stage * Cfg::kStageFloats;
    multiply_stage<Cfg>(acc, a_stage + a_frag, a_stage + Cfg::kBK * Cfg::kARow + b_frag);
  });
}

// Configurations with more than 128 registers: the barrier sits before each step's last
// FMAs (see below), and a partial K-step comes first.
template <class Cfg, bool VectorB, bool CheckMN>
__device__ __forceinline__ void main_loop_across_steps(const GemmArgs& g, const TileOrigin& t,
                                                       int k_begin, int k_end, float* smem,
                                                       float (&acc)[Cfg::kTM][Cfg::kTN]) {
  const int a_frag = fragment_row<Cfg>();  // offsets in a row of the A and B tiles
  const int b_frag = fragment_col<Cfg>();
  // A partial K-step, if any, comes first (the order of the sums does not matter), so that
  // every copy issued inside the loops is of a full step and needs no K check.
  const int rem = (k_end - k_begin) % Cfg::kBK;
  const int tail = rem > 0 ? 1 : 0;
  const int k_full = k_begin + rem;  // where the full steps begin
  const int steps = tail + (k_end - k_full) / Cfg::kBK;

  // Full steps are copied in step order, so the interior path's pointers advance once per copy.
  struct NoInteriorCopy {
    __device__ NoInteriorCopy(const GemmArgs&, int, int, int) {}
  };
  using Interior = std::conditional_t<Cfg::kInteriorPointers && !CheckMN, InteriorCopy<Cfg, VectorB>,
                                      NoInteriorCopy>;
  [[maybe_unused]] Interior interior(g, t.row0, t.col0, k_full);
  const auto copy_full = [&](int step, int stage) {  // step >= tail
    float* a_stage = smem + stage * Cfg::kStageFloats;
    float* b_stage = a_stage + Cfg::kBK * Cfg::kARow;
    if constexpr (CheckMN || !Cfg::kInteriorPointers) {
      copy_k_step<Cfg, VectorB, CheckMN, false>(g, t.row0, t.col0, k_full + (step - tail) * Cfg::kBK,
                                                k_end, a_stage, b_stage);
    } else {
      interior.copy(g, a_stage, b_stage);
      interior.advance(g);
    }
  };
  const auto copy = [&](int step, int stage) {
    if (step < tail) {
      float* a_stage = smem + stage * Cfg::kStageFloats;
      copy_k_step<Cfg, VectorB, CheckMN, true>(g, t.row0, t.col0, k_begin, k_full, a_stage,
                                               a_stage + Cfg::kBK * Cfg::kARow);
    } else {
      copy_full(step, stage);
    }
  };

  // Every stage holds a K-step in flight; the stage a step was read from is refilled (with
  // the step Stages later) as soon as every thread has read its last fragments from it. That
  // moment comes before the step's last FMAs, so the barrier sits there, and the next step's
  // first fragments are read during those FMAs: no shared-memory latency is exposed at step
  // boundaries.
  {
#pragma unroll
    for (int s = 0; s < Cfg::kStages; ++s) {
      if (s < steps) copy(s, s);
      cp_async_commit();  // empty groups keep the count of pending groups uniform
    }
    cp_async_wait<Cfg::kStages - 1>();
    __syncthreads();
    Fragments<Cfg> f[2];
    read_fragments<Cfg>(f[0], smem + a_frag, smem + Cfg::kBK * Cfg::kARow + b_frag);
    int stage = 0;
    // One K-step. Refill: the step Stages ahead exists, so this step copies it, and the next
    // step certainly exists. The loop that refills has no branch inside, so the compiler can
    // spread the copy instructions among the FMAs.
    const auto multiply_step = [&](int step, auto refill) {
      const float* a_stage = smem + stage * Cfg::kStageFloats;
      const float* b_stage = a_stage + Cfg::kBK * Cfg::kARow;
#pragma unroll
      for (int kk = 0; kk < Cfg::kBK - 1; ++kk) {
        read_fragments<Cfg>(f[(kk + 1) % 2], a_stage + a_frag + (kk + 1) * Cfg::kARow,
                            b_stage + b_frag + (kk + 1) * Cfg::kBN);
        outer_product<Cfg>(acc, f[kk % 2]);
      }
      // This thread has read all of `stage`. Once all have (the barrier), it takes the step
      // Stages ahead; the copies of step + 1 have landed by then (all but Stages - 2 of the
      // groups committed so far are complete).
      cp_async_wait<Cfg::kStages - 2>();
      __syncthreads();
      if constexpr (decltype(refill)::value) copy_full(step + Cfg::kStages, stage);
      cp_async_commit();
      stage = stage + 1 == Cfg::kStages ? 0 : stage + 1;
      if (decltype(refill)::value || step + 1 < steps) {
        const float* next = smem + stage * Cfg::kStageFloats;
        read_fragments<Cfg>(f[Cfg::kBK % 2], next + a_frag, next + Cfg::kBK * Cfg::kARow + b_frag);
      }
      outer_product<Cfg>(acc, f[(Cfg::kBK - 1) % 2]);
    };
    int step = 0;
    for (; step + Cfg::kStages < steps; ++step) multiply_step(step, std::true_type{});
    for (; step < steps; ++step) multiply_step(step, std::false_type{});
  }
}

template <class Cfg, bool VectorB, bool CheckMN>
__device__ __forceinline__ void main_loop(const GemmArgs& g, const TileOrigin& t, int k_begin,
                                          int k_end, float* smem,
                                          float (&acc)[Cfg::kTM][Cfg::kTN]) {
  if constexpr (Cfg::kStages > 1 && Cfg::kFragmentsAcrossSteps) {
    main_loop_across_steps<Cfg, VectorB, CheckMN>(g, t, k_begin, k_end, smem, acc);
  } else {
    main_loop_at_step_start<Cfg, VectorB, CheckMN>(g, t, k_begin, k_end, smem, acc);
  }
}

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

// One block per tile of C, the whole of K.
template <class Cfg, bool VectorB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    tiled_gemm_kernel(GemmArgs g, int group) {
  extern __shared__ float4 smem_f4[];
  float* smem = reinterpret_cast<float*>(smem_f4);
  const TileOrigin t = tile_origin(g, Cfg::kBM, Cfg::kBN, group);
  float acc[Cfg::kTM][Cfg::kTN] = {};
  if (t.edge) {
    main_loop<Cfg, VectorB, true>(g, t, 0, g.k, smem, acc);
  } else {
    main_loop<Cfg, VectorB, false>(g, t, 0, g.k, smem, acc);
  }
  store_tile<Cfg>(g, t, acc);
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
  if (tid == 0) s.counters[divided] = 0;  // every part has arrived: ready for the next launch
  return true;
}

// The block `slice` of a divided tile whose blocks are all resident: it writes its partial
// sums, waits for the tile's other blocks, then sums and stores its share of the tile's float4s
// (whole warps' worth, in order). Each block reads one slot's worth instead of the last block
// reading them all: at 64 slices, 1/64 of the time. The counter counts each block twice
// (written, summed); the last count resets it.
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
  if (tid == 0 && atomicAdd(&s.counters[divided], 1) == 2 * s.slices - 1) s.counters[divided] = 0;
}

// `slices` blocks per divided tile.
template <class Cfg, bool VectorB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    split_gemm_kernel(GemmArgs g, SplitSchedule s) {
  extern __shared__ float4 smem_f4[];
  float* smem = reinterpret_cast<float*>(smem_f4);
  __shared__ int last_flag;
  const int block = static_cast<int>(blockIdx.x);
  const int divided = block / s.slices;
  const int slice = block % s.slices;
  const int tile = s.whole_tiles + divided;
  const int k_begin = static_cast<int>(static_cast<long long>(slice) * s.steps_per_tile / s.slices) * Cfg::kBK;
  const int k_end = min(g.k, static_cast<int>(static_cast<long long>(slice + 1) * s.steps_per_tile / s.slices) * Cfg::kBK);
  const TileOrigin t = smemlab::detail::rastered_tile_at(tile, g.m, g.n, Cfg::kBM, Cfg::kBN, s.group);
  float acc[Cfg::kTM][Cfg::kTN] = {};
  if (t.edge) {
    main_loop<Cfg, VectorB, true>(g, t, k_begin, k_end, smem, acc);
  } else {
    main_loop<Cfg, VectorB, false>(g, t, k_begin, k_end, smem, acc);
  }
  if (s.spread_sum) {
    every_block_sums<Cfg>(g, t, s, divided, slice, acc);
  } else if (last_block_sums<Cfg>(s, divided, slice, acc, last_flag)) {
    store_tile<Cfg>(g, t, acc);
  }
}

// The launches of a configuration: one block per tile, or split-K (every tile divided into
// `slices`) or the last-wave split (tiles of the full waves one block each, then a launch
// dividing the tiles beyond them so that their blocks fill one more wave). Sizes the dynamic
// shared memory on first use.
template <class Cfg, bool VectorB>
struct ConfigLaunch {
  static void size_shared_memory() {
    static const bool sized = [] {
      for (const void* kernel : {reinterpret_cast<const void*>(tiled_gemm_kernel<Cfg, VectorB>),
                                 reinterpret_cast<const void*>(split_gemm_kernel<Cfg, VectorB>)})
        SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                static_cast<int>(Cfg::kSmemBytes)));
      return true;
    }();
    (void)sized;
  }

  // Blocks of the split kernel resident at once on the device.
  static int slots() {
    size_shared_memory();
    return smemlab::detail::resident_blocks(reinterpret_cast<const void*>(split_gemm_kernel<Cfg, VectorB>),
                                            Cfg::kThreads, Cfg::kSmemBytes);
  }

  // The schedule of a choice (slices == 1: one block per tile).
  static SplitSchedule schedule(const GemmArgs& g, const TileChoice& c) {
    SplitSchedule s;
    s.group = c.group;
    const int tiles = static_cast<int>(grid_for(g, Cfg::kBM, Cfg::kBN));
    s.steps_per_tile = (g.k + Cfg::kBK - 1) / Cfg::kBK;
    s.whole_tiles = tiles;
    const int resident = c.split_last_wave || c.slices > 1 ? slots() : 0;
    if (c.split_last_wave) {
      const int last = tiles % resident;  // tiles of the last, partial wave
      s.whole_tiles = tiles - last;
      s.slices = last > 0 ? std::max(1, resident / last) : 1;
    } else if (c.slices > 1) {
      s.whole_tiles = 0;
      s.slices = c.slices;
    }
    s.slices = std::min(s.slices, s.steps_per_tile);  // every block at least one K-step
    if (s.slices == 1) s.whole_tiles = tiles;
    const unsigned long long split = static_cast<unsigned long long>(tiles - s.whole_tiles) * s.slices;
    smemlab::detail::grid_1d(split, "gemm: the split has more blocks than a grid holds");
    s.spread_sum = s.whole_tiles == 0 && s.slices > 1 && split <= static_cast<unsigned long long>(resident) &&
                   smemlab::detail::cooperative_launch_supported();
    return s;
  }

  // Blocks of the split launch.
  static unsigned split_blocks(const GemmArgs& g, const SplitSchedule& s) {
    return (grid_for(g, Cfg::kBM, Cfg::kBN) - s.whole_tiles) * s.slices;
  }

  static WorkspaceLayout layout(const GemmArgs& g, const SplitSchedule& s) {
    if (s.slices == 1) return {};
    const std::size_t divided = grid_for(g, Cfg::kBM, Cfg::kBN) - s.whole_tiles;
    return WorkspaceLayout::of(divided, divided * s.slices * Cfg::kBM * Cfg::kBN);
  }

  static void run(const GemmArgs& g, const LaunchContext& ctx, const TileChoice& c) {
    size_shared_memory();
    SplitSchedule s = schedule(g, c);
    if (s.whole_tiles > 0) {
      tiled_gemm_kernel<Cfg, VectorB><<<s.whole_tiles, Cfg::kThreads, Cfg::kSmemBytes, ctx.stream>>>(g, c.group);
      SMEMLAB_LAUNCH_CHECK();
    }
    if (s.slices == 1) return;
    const WorkspaceScope workspace(g, layout(g, s), ctx.stream);
    s.counters = workspace.counters();
    s.partials = workspace.partials();
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = s.spread_sum ? 1 : 0;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(split_blocks(g, s));
    config.blockDim = dim3(Cfg::kThreads);
    config.dynamicSmemBytes = Cfg::kSmemBytes;
    config.stream = ctx.stream;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    SMEMLAB_CUDA_CHECK(cudaLaunchKernelEx(&config, split_gemm_kernel<Cfg, VectorB>, g, s));
    SMEMLAB_LAUNCH_CHECK();
  }
};

// B copied to rows that start on 128-byte boundaries, in the workspace after the split's scratch.
struct AlignedCopyOfB {
  std::size_t offset = 0;  // bytes into the workspace
  int ld = 0;
  std::size_t end = 0;  // bytes of workspace in all
};

inline AlignedCopyOfB aligned_copy_of_b(const GemmArgs& g, std::size_t split_bytes) {
  AlignedCopyOfB copy;
  copy.offset = (split_bytes + 255) / 256 * 256;
  copy.ld = smemlab::detail::line_aligned_ld(g.n, sizeof(float));
  copy.end = copy.offset + sizeof(float) * static_cast<std::size_t>(copy.ld) * g.k;
  return copy;
}

template <class Cfg>
void launch_config(const GemmArgs& g, const LaunchContext& ctx, const TileChoice& choice) {
  if (rows_are_16b_aligned(g.b, g.ldb)) {
    ConfigLaunch<Cfg, true>::run(g, ctx, choice);
    return;
  }
  if (!choice.align_b) {
    ConfigLaunch<Cfg, false>::run(g, ctx, choice);
    return;
  }
  using L = ConfigLaunch<Cfg, true>;
  const WorkspaceLayout split = L::layout(g, L::schedule(g, choice));
  const AlignedCopyOfB copy = aligned_copy_of_b(g, split.bytes);
  const WorkspaceScope workspace(g, {split.counter_bytes, copy.end}, ctx.stream);
  GemmArgs aligned = g;
  aligned.b = reinterpret_cast<const float*>(static_cast<char*>(workspace.base()) + copy.offset);
  aligned.ldb = copy.ld;
  aligned.workspace = workspace.base();
  aligned.workspace_size = split.bytes;
  smemlab::detail::copy_rows(g.b, g.ldb, const_cast<float*>(aligned.b), copy.ld, g.k, g.n, sizeof(float), ctx.stream);
  L::run(aligned, ctx, choice);
}

template <class Cfg>
std::size_t config_workspace_bytes(const GemmArgs& g, const TileChoice& choice) {
  const bool aligned = rows_are_16b_aligned(g.b, g.ldb);
  if (aligned || choice.align_b) {
    using L = ConfigLaunch<Cfg, true>;
    const std::size_t split = L::layout(g, L::schedule(g, choice)).bytes;
    return aligned ? split : aligned_copy_of_b(g, split).end;
  }
  using L = ConfigLaunch<Cfg, false>;
  return L::layout(g, L::schedule(g, choice)).bytes;
}

}  // namespace smemlab::matmul::detail
