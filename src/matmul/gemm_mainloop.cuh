#pragma once
// The main loop of the SGEMM kernel (the parts are listed in tile_config.cuh): a block's
// K-steps from k_begin to k_end, copied to shared memory and multiplied into each thread's
// TM x TN accumulators, which gemm_epilogue.cuh then stores.
// - Copies: cp.async, global -> shared without passing through registers. A is copied 4 bytes
//   at a time into a transposed tile a[k][m] whose rows are padded to BM + 4 floats: a warp
//   copies 4 rows x 8 k, and 4k + m puts those 32 lanes in 32 banks. B is copied 16 bytes at a
//   time when its rows are aligned (else 4, or B is first copied to aligned rows in the
//   workspace when the choice says so: gemm_launch.cuh). Out-of-range elements are zero-filled
//   by the copy itself (src-size 0), and only edge blocks and the last partial K-step check
//   bounds.
// - Stages: with Stages = 1 a block copies, waits, computes and waits again; with Stages > 1
//   the copies of the next Stages - 1 K-steps are in flight while one is computed, behind one
//   barrier per K-step.
// - Fragments are double-buffered in registers: the values for k + 1 are read from shared
//   memory while the FMAs of k run.
#include <cstddef>
#include <type_traits>

#include "core/cp_async.cuh"
#include "matmul/gemm_device.cuh"
#include "matmul/tile_config.cuh"

namespace smemlab::matmul::detail {

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

// The interior copies of a block wholly inside C (CheckMN false) where the configuration keeps
// their pointers in registers (kInteriorPointers), else a placeholder that holds nothing.
struct NoInteriorCopy {
  __device__ NoInteriorCopy(const GemmArgs&, int, int, int) {}
};
template <class Cfg, bool VectorB, bool CheckMN>
using InteriorCopyIfKept = std::conditional_t<Cfg::kInteriorPointers && !CheckMN,
                                              InteriorCopy<Cfg, VectorB>, NoInteriorCopy>;

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
  [[maybe_unused]] InteriorCopyIfKept<Cfg, VectorB, CheckMN> interior(g, t.row0, t.col0, k_begin);
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
  [[maybe_unused]] InteriorCopyIfKept<Cfg, VectorB, CheckMN> interior(g, t.row0, t.col0, k_full);
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

}  // namespace smemlab::matmul::detail
