#pragma once
// The mma.sync GEMM of steps 02-06, written once and configured by a tile policy. Layers:
// block tile (BM x BN, K-steps of 128 bytes) -> warp tile (WM x WN) -> mma tiles of 16 x 8.
// - Copies: cp.async, 16 bytes a thread, into a padded or swizzled tile (mma_device.cuh);
//   edges are zero-filled by the copy. The full K-steps of aligned operands use addresses
//   computed once per block (StepCopy); only a last partial K-step checks every bound. Rows
//   aligned to 4 bytes only are copied 4 bytes at a time, still by cp.async; rows of 2-byte
//   types that start on odd elements, element by element (copy_chunk).
// - Stages: the ring of core/cp_async.cuh (pipelined_steps), one barrier per K-step.
// - Fragments: ldmatrix.x4 gives a warp a 16 x 16 (or 16 x 8 tf32) piece of A in one
//   instruction, ldmatrix.x4.trans two 16 x 8 pieces of B; tf32's B is read 4 bytes a lane.
//   With DoubleBuffer the fragments of the next 32 bytes of K are read while the mma.syncs
//   of the current ones run.
#include <cuda_runtime.h>

#include <stdexcept>

#include "core/per_device.hpp"
#include "smemlab/error.hpp"
#include "tensor_matmul/mma_device.cuh"

namespace smemlab::tensor_matmul::detail {

template <int BM, int BN, int WM, int WN, int Stages, Layout L, bool DoubleBuffer, int MinBlocks = 1>
struct MmaConfig {
  static constexpr int kBM = BM, kBN = BN, kWM = WM, kWN = WN, kStages = Stages;
  static constexpr Layout kLayout = L;
  static constexpr bool kDoubleBuffer = DoubleBuffer;
  static constexpr int kMinBlocks = MinBlocks;
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * (BM / WM) * kWarpsN;
  static constexpr int kMI = WM / 16;  // mma tiles down a warp tile
  static constexpr int kNI = WN / 8;   // and across
  static constexpr int kATileBytes = ATile<L>::bytes(BM);
  template <class E>
  static constexpr int kStageBytes = kATileBytes + BTile<L, E, BN>::bytes(kKStepBytes / kElemBytes<E>);
  template <class E>
  static constexpr std::size_t kSmemBytes = static_cast<std::size_t>(kStageBytes<E>) * Stages;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 16 == 0);
};

// One warp's fragments for 32 bytes of K.
template <class Cfg>
struct Fragments {
  unsigned a[Cfg::kMI][4];
  unsigned b[Cfg::kNI][2];
};

template <class Cfg, class E>
__device__ __forceinline__ void read_fragments(Fragments<Cfg>& f, const char* a_tile, const char* b_tile, int kk,
                                               int wm0, int wn0, int lane) {
  using A = ATile<Cfg::kLayout>;
  using B = BTile<Cfg::kLayout, E, Cfg::kBN>;
  constexpr int kChunksPerMma = kMmaKBytes / 16;
  // ldmatrix.x4 on A: lanes 0-15 give rows 0-15 at the first 16 bytes of this K, lanes 16-31
  // the same rows 16 bytes on; the four matrices are then the mma's a0..a3.
#pragma unroll
  for (int i = 0; i < Cfg::kMI; ++i)
    ldmatrix_x4(f.a[i], smem_address(a_tile + A::offset(wm0 + i * 16 + lane % 16, kk * kChunksPerMma + lane / 16)));
  if constexpr (kIsTf32<E>) {
    // b0 = B(k = lane % 4, n = lane / 4), b1 four rows further down.
#pragma unroll
    for (int j = 0; j < Cfg::kNI; ++j) {
      const int col = wn0 + j * 8 + lane / 4;
      const int row = kk * 8 + lane % 4;
      f.b[j][0] = *reinterpret_cast<const unsigned*>(b_tile + B::offset(row, col / 4) + col % 4 * 4);
      f.b[j][1] = *reinterpret_cast<const unsigned*>(b_tile + B::offset(row + 4, col / 4) + col % 4 * 4);
    }
  } else {
    // ldmatrix.x4.trans on B: rows k..k+15 of two 8-column chunks; matrices 0, 1 are the b0,
    // b1 of the first 8 columns, 2, 3 those of the next 8.
#pragma unroll
    for (int j = 0; j < Cfg::kNI; j += 2) {
      unsigned r[4];
      ldmatrix_x4_trans(r, smem_address(b_tile + B::offset(kk * 16 + lane % 16, (wn0 + j * 8) / 8 + lane / 16)));
      f.b[j][0] = r[0];
      f.b[j][1] = r[1];
      f.b[j + 1][0] = r[2];
      f.b[j + 1][1] = r[3];
    }
  }
}

template <class Cfg, class E>
__device__ __forceinline__ void multiply_stage(float (&acc)[Cfg::kMI][Cfg::kNI][4], const char* a_tile,
                                               const char* b_tile, int wm0, int wn0, int lane) {
  constexpr int kSteps = kKStepBytes / kMmaKBytes;
  const auto mma_all = [&](const Fragments<Cfg>& f) {
#pragma unroll
    for (int i = 0; i < Cfg::kMI; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kNI; ++j) mma<E>(acc[i][j], f.a[i], f.b[j]);
  };
  if constexpr (Cfg::kDoubleBuffer) {
    Fragments<Cfg> f[2];
    read_fragments<Cfg, E>(f[0], a_tile, b_tile, 0, wm0, wn0, lane);
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      if (kk + 1 < kSteps) read_fragments<Cfg, E>(f[(kk + 1) % 2], a_tile, b_tile, kk + 1, wm0, wn0, lane);
      mma_all(f[kk % 2]);
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < kSteps; ++kk) {
      Fragments<Cfg> f;
      read_fragments<Cfg, E>(f, a_tile, b_tile, kk, wm0, wn0, lane);
      mma_all(f);
    }
  }
}

// The warp's origin in the block tile, and its accumulators: mma.sync's C tiles, 16 x 8 each.
template <class Cfg>
struct WarpTile {
  int wm0, wn0, lane;
  float acc[Cfg::kMI][Cfg::kNI][4] = {};
  __device__ __forceinline__ WarpTile() {
    lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    wm0 = warp / Cfg::kWarpsN * Cfg::kWM;
    wn0 = warp % Cfg::kWarpsN * Cfg::kWN;
  }
};

// K-steps [first, first + count) of tile t, accumulated into the warp's tile: each step copied
// into a stage of the ring, then multiplied.
template <class Cfg, class E, int Granule>
__device__ __forceinline__ void multiply_k_steps(const GemmArgs& g, const TileOrigin& t, int first, int count,
                                                 char* smem, WarpTile<Cfg>& w) {
  constexpr int kStageBytes = Cfg::template kStageBytes<E>;
  constexpr int kABytes = Cfg::kATileBytes;
  constexpr int kBK = kKStepBytes / kElemBytes<E>;
  // Full K-steps of 16-byte-aligned operands: StepCopy; the last partial step, and narrower
  // copies: copy_k_step, checking bounds only where a tile or step reaches past an edge.
  const int full_steps = Granule == 16 ? g.k / kBK : 0;
  StepCopy<E, Cfg::kBM, Cfg::kBN, Cfg::kThreads, Cfg::kLayout> step_copy(g, t);
  if (Granule == 16) step_copy.skip(g, first);
  const auto copy = [&](int local_step, int stage) {
    const int step = first + local_step;
    char* a_stage = smem + stage * kStageBytes;
    if (step < full_steps) {
      if (t.edge) {
        step_copy.template copy<true>(g, step * kBK, a_stage, a_stage + kABytes);
      } else {
        step_copy.template copy<false>(g, step * kBK, a_stage, a_stage + kABytes);
      }
    } else if (t.edge || (step + 1) * kBK > g.k) {
      copy_k_step<E, Cfg::kBM, Cfg::kBN, Cfg::kThreads, Cfg::kLayout, Granule, true>(g, t, step * kBK, a_stage,
                                                                                    a_stage + kABytes);
    } else {
      copy_k_step<E, Cfg::kBM, Cfg::kBN, Cfg::kThreads, Cfg::kLayout, Granule, false>(g, t, step * kBK, a_stage,
                                                                                     a_stage + kABytes);
    }
  };
  const auto multiply = [&](int stage) {
    const char* a_stage = smem + stage * kStageBytes;
    multiply_stage<Cfg, E>(w.acc, a_stage, a_stage + kABytes, w.wm0, w.wn0, w.lane);
  };
  smemlab::detail::pipelined_steps<Cfg::kStages>(count, copy, multiply);
}

// One 16 x 8 C tile of mma.sync at (r, c): the lane holds rows r and r + 8 (r = lane / 4 from
// the tile's top), columns c and c + 1 (c = 2 (lane % 4) from its left).
template <bool Checked, bool Pairs>
__device__ __forceinline__ void store_mma_tile(const GemmArgs& g, int r, int c, const float (&v)[4]) {
  store_c2<Checked, Pairs>(g, r, c, v[0], v[1]);
  store_c2<Checked, Pairs>(g, r + 8, c, v[2], v[3]);
}

// The warp's accumulators into C, bounds checked only in tiles at C's edge.
template <class Cfg>
__device__ __forceinline__ void store_warp_tile(const GemmArgs& g, const TileOrigin& t, bool c_pairs,
                                                const WarpTile<Cfg>& w) {
  store_tile(t.edge, c_pairs, [&](auto checked, auto pairs) {
#pragma unroll
    for (int i = 0; i < Cfg::kMI; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kNI; ++j)
        store_mma_tile<decltype(checked)::value, decltype(pairs)::value>(
            g, t.row0 + w.wm0 + i * 16 + w.lane / 4, t.col0 + w.wn0 + j * 8 + w.lane % 4 * 2, w.acc[i][j]);
  });
}

template <class Cfg, class E, int Granule>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks) mma_gemm_kernel(GemmArgs g, int group, bool c_pairs) {
  extern __shared__ __align__(128) char smem[];
  constexpr int kBK = kKStepBytes / kElemBytes<E>;
  const TileOrigin t = smemlab::detail::rastered_tile(g.m, g.n, Cfg::kBM, Cfg::kBN, group);
  WarpTile<Cfg> w;
  multiply_k_steps<Cfg, E, Granule>(g, t, 0, (g.k + kBK - 1) / kBK, smem, w);
  store_warp_tile(g, t, c_pairs, w);
}

template <class Cfg, class E, int Granule>
void launch_mma_with(const GemmArgs& g, cudaStream_t stream, int group) {
  constexpr std::size_t kSmem = Cfg::template kSmemBytes<E>;
  smemlab::detail::allow_dynamic_smem(mma_gemm_kernel<Cfg, E, Granule>, kSmem);
  const long long tiles = static_cast<long long>((g.m + Cfg::kBM - 1) / Cfg::kBM) * ((g.n + Cfg::kBN - 1) / Cfg::kBN);
  if (tiles > 0x7FFFFFFFLL) throw std::invalid_argument("gemm: C has more tiles than a grid holds");
  mma_gemm_kernel<Cfg, E, Granule>
      <<<static_cast<unsigned>(tiles), Cfg::kThreads, kSmem, stream>>>(g, group, c_pairs_aligned(g));
  SMEMLAB_LAUNCH_CHECK();
}

// The input type's kernel, with the widest copies the operands' rows allow.
template <class Cfg>
void launch_mma(const GemmArgs& g, cudaStream_t stream, int group) {
  with_input_type(g.input, [&](auto e) {
    using E = decltype(e);
    with_copy_granule<E>(g, [&](auto granule) { launch_mma_with<Cfg, E, decltype(granule)::value>(g, stream, group); });
  });
}

}  // namespace smemlab::tensor_matmul::detail
