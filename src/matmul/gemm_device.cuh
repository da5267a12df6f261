#pragma once
// Device helpers shared by the matmul kernels: tile coordinates, predicated loads and the
// alpha/beta epilogue. Kernels instantiate the load with Checked = false for tiles that lie
// wholly inside the matrices, so the interior pays nothing for edge handling.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/occupancy.hpp"
#include "smemlab/matmul.hpp"

namespace smemlab::matmul::detail {

// Element (r, c) of a row-major matrix with leading dimension ld; when Checked, 0 outside
// rows x cols, so partial tiles contribute nothing to the sums.
template <bool Checked>
__device__ __forceinline__ float load_or_zero(const float* p, int r, int c, int ld, int rows,
                                              int cols) {
  if constexpr (Checked) {
    if (r >= rows || c >= cols) return 0.0F;
  }
  return p[static_cast<std::size_t>(r) * ld + c];
}

// Rows of a matrix can be read and written 16 bytes at a time: an aligned base and a leading
// dimension that keeps every row aligned.
__host__ __device__ inline bool rows_are_16b_aligned(const float* p, int ld) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
}

// Elements (r, c..c+3). Vector: one 16-byte load when all four lie inside (rows x cols) or
// when unchecked; the caller guarantees alignment. Otherwise four loads of load_or_zero.
template <bool Checked, bool Vector>
__device__ __forceinline__ float4 load4_or_zero(const float* p, int r, int c, int ld, int rows,
                                                int cols) {
  if constexpr (Vector) {
    if (!Checked || (r < rows && c + 3 < cols))
      return *reinterpret_cast<const float4*>(p + static_cast<std::size_t>(r) * ld + c);
  }
  return {load_or_zero<Checked>(p, r, c, ld, rows, cols),
          load_or_zero<Checked>(p, r, c + 1, ld, rows, cols),
          load_or_zero<Checked>(p, r, c + 2, ld, rows, cols),
          load_or_zero<Checked>(p, r, c + 3, ld, rows, cols)};
}

// C = alpha * acc + beta * C; with beta == 0, C is never read (it may hold NaN, as BLAS allows).
__device__ __forceinline__ void store_c(float* c, float acc, float alpha, float beta) {
  *c = beta == 0.0F ? alpha * acc : alpha * acc + beta * *c;
}

template <bool Checked>
__device__ __forceinline__ void store_c_if(const GemmArgs& g, int r, int c, float acc) {
  if constexpr (Checked) {
    if (r >= g.m || c >= g.n) return;
  }
  store_c(g.c + static_cast<std::size_t>(r) * g.ldc + c, acc, g.alpha, g.beta);
}

// C(r, c..c+3) from four accumulators: one 16-byte access when Vector and (unchecked or all
// four inside C), else element by element.
template <bool Checked, bool Vector>
__device__ __forceinline__ void store_c4_if(const GemmArgs& g, int r, int c, float4 acc) {
  if constexpr (Vector) {
    if (!Checked || (r < g.m && c + 3 < g.n)) {
      auto* p = reinterpret_cast<float4*>(g.c + static_cast<std::size_t>(r) * g.ldc + c);
      float4 out{g.alpha * acc.x, g.alpha * acc.y, g.alpha * acc.z, g.alpha * acc.w};
      if (g.beta != 0.0F) {
        const float4 old = *p;
        out = {out.x + g.beta * old.x, out.y + g.beta * old.y, out.z + g.beta * old.z,
               out.w + g.beta * old.w};
      }
      *p = out;
      return;
    }
  }
  store_c_if<Checked>(g, r, c, acc.x);
  store_c_if<Checked>(g, r, c + 1, acc.y);
  store_c_if<Checked>(g, r, c + 2, acc.z);
  store_c_if<Checked>(g, r, c + 3, acc.w);
}

// Block tiles are numbered in a 1D grid (no 65535 limit on either dimension), row-major
// over the tiles of C.
struct BlockTile {
  int row0;
  int col0;
  bool edge;  // the tile reaches past the last row or column of C
};

__device__ __forceinline__ BlockTile block_tile(const GemmArgs& g, int tile_rows, int tile_cols) {
  const int tiles_n = (g.n + tile_cols - 1) / tile_cols;
  const int row0 = static_cast<int>(blockIdx.x / tiles_n) * tile_rows;
  const int col0 = static_cast<int>(blockIdx.x % tiles_n) * tile_cols;
  return {row0, col0, row0 + tile_rows > g.m || col0 + tile_cols > g.n};
}

inline unsigned grid_for(const GemmArgs& g, int tile_rows, int tile_cols) {
  const long long tiles = static_cast<long long>((g.m + tile_rows - 1) / tile_rows) *
                          ((g.n + tile_cols - 1) / tile_cols);
  return smemlab::detail::grid_1d(tiles, "gemm: C has more tiles than a grid holds");
}

// Walks K in steps of `depth`, calling step(checked, k0) with checked a std::bool_constant:
// unchecked for the full steps of an interior block, checked on edge blocks and for the last
// partial step. The branch is uniform across the block, so no warp diverges on it.
template <class Step>
__device__ __forceinline__ void for_each_k_step(int k, int depth, bool edge, Step&& step) {
  const int k_full = k - k % depth;
  if (edge) {
    for (int k0 = 0; k0 < k_full; k0 += depth) step(std::true_type{}, k0);
  } else {
    for (int k0 = 0; k0 < k_full; k0 += depth) step(std::false_type{}, k0);
  }
  if (k_full < k) step(std::true_type{}, k_full);
}

template <class StoreAll>
__device__ __forceinline__ void epilogue(bool edge, StoreAll&& store_all) {
  if (edge) {
    store_all(std::true_type{});
  } else {
    store_all(std::false_type{});
  }
}

}  // namespace smemlab::matmul::detail
