#pragma once
// The SGEMM kernels (the parts are listed in tile_config.cuh), each the main loop of
// gemm_mainloop.cuh then the epilogue of gemm_epilogue.cuh: one block per tile of C over the
// whole of K, or `slices` blocks per divided tile, each an equal share of its K-steps, whose
// partial sums the epilogue adds. gemm_launch.cuh launches them.
#include "core/raster.cuh"
#include "matmul/gemm_device.cuh"
#include "matmul/gemm_epilogue.cuh"
#include "matmul/gemm_mainloop.cuh"
#include "matmul/tile_config.cuh"

namespace smemlab::matmul::detail {

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

}  // namespace smemlab::matmul::detail
