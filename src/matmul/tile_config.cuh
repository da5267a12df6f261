#pragma once
// The SGEMM kernel of the warp-tile, pipelined, rasterized and autotuned steps (09-12), written
// once and configured by a tile policy (as CUB keeps tuning policies apart from algorithms), in
// the parts CUTLASS gives a kernel:
// - tile_config.cuh, this header: the policy TileConfig, and where tiles lie: a block's tile in
//   C, a thread's fragments in its block's tile;
// - gemm_mainloop.cuh: the loop over K (global -> shared copies, fragments in registers, the
//   cp.async stages), which leaves a thread's share of the tile in its accumulators;
// - gemm_epilogue.cuh: the accumulators stored to C, or summed with other blocks' partial sums
//   first when several blocks divide a tile's K (split-K);
// - gemm_kernels.cuh: the kernels, each a main loop then an epilogue;
// - gemm_launch.cuh: the host side: how K is divided, B's aligned copy, the launches.
// Layers: block tile (BM x BN, K-steps of BK) -> warp tile (WM x WN) -> thread tile (TM x TN,
// made of 4x4 pieces spread so that a warp's fragment reads are contiguous).
#include <cstddef>

#include "core/raster.cuh"
#include "matmul/gemm_device.cuh"

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
  // Likewise, reading the next K-step's first fragments across the barrier
  // (main_loop_across_steps) keeps two steps' fragments live: only above 128 registers.
  static constexpr bool kFragmentsAcrossSteps = kRegisterBudget > 128;
  static_assert(BM % WM == 0 && BN % WN == 0 && WM % TM == 0 && WN % TN == 0);
  static_assert(kLaneRows * kLaneCols == 32, "a warp tile is 32 thread tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 pieces");
  static_assert(BK % 8 == 0 && (BM * BK) % kThreads == 0, "A is copied in runs of 8 k");
  static_assert((BK * BN) % (4 * kThreads) == 0, "each thread copies whole float4s of B");
  static_assert(Stages >= 1);
};

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

// Rasterisation: consecutive blocks walk down a group of `group` block-rows before moving
// right, so the blocks resident together share their A and B tiles in L2.
using smemlab::detail::TileOrigin;

__device__ __forceinline__ TileOrigin tile_origin(const GemmArgs& g, int bm, int bn, int group) {
  return smemlab::detail::rastered_tile(g.m, g.n, bm, bn, group);
}

}  // namespace smemlab::matmul::detail
