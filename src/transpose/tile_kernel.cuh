#pragma once
// The transpose1 of the tutorial “Shared Memory”, for the three shared-memory layouts of steps
// 04-06: a 32 x 32 block reads a 32 x 32 tile row by row (coalesced), writes it to shared memory,
// and after a barrier reads it column by column to write the output row by row (coalesced). Only
// the layout of the tile in shared memory differs between the steps.
#include "smemlab/error.hpp"
#include "transpose/transpose_device.cuh"

namespace smemlab::transpose::detail {

template <bool Checked, class Layout, class T>
__device__ __forceinline__ void transpose_tile(const Args<T>& a, Tile t, T* tile) {
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  tile[Layout::at(ty, tx)] = load<Checked>(a.in, t.row0 + ty, t.col0 + tx, a.ld_in, a.rows, a.cols);
  __syncthreads();
  // Output row col0 + ty holds input column col0 + ty; its element tx is input row row0 + tx.
  store<Checked>(a.out, t.col0 + ty, t.row0 + tx, a.ld_out, a.cols, a.rows, tile[Layout::at(tx, ty)]);
}

template <class Layout, class T>
__global__ void __launch_bounds__(kTile* kTile) tile_transpose_kernel(Args<T> a) {
  __shared__ T tile[Layout::kWords];
  const Tile t = tile_at(a, blockIdx.x, kTile, kTile);
  if (t.edge) {
    transpose_tile<true, Layout>(a, t, tile);
  } else {
    transpose_tile<false, Layout>(a, t, tile);
  }
}

template <class Layout>
struct TileTranspose {
  template <class T>
  struct For {
    static void launch(const Args<T>& a, const LaunchContext& ctx) {
      tile_transpose_kernel<Layout><<<grid_of(tile_count(a, kTile, kTile)), dim3(kTile, kTile), 0,
                                      ctx.stream>>>(a);
      SMEMLAB_LAUNCH_CHECK();
    }
  };
};

}  // namespace smemlab::transpose::detail
