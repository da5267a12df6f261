#pragma once
// Shared by the transpose kernels: square tiles of 32 numbered in a 1D grid (no 65535 limit),
// element access that is predicated only on edge tiles, and the shared-memory tile layouts.
#include <cstddef>

#include "core/occupancy.hpp"
#include "smemlab/transpose.hpp"

namespace smemlab::transpose::detail {

constexpr int kTile = 32;

struct Tile {
  int row0;  // first input row of the tile
  int col0;  // first input column
  bool edge;  // the tile reaches past the last row or column
};

template <class T>
__device__ __forceinline__ Tile tile_at(const Args<T>& a, long long index, int tile_rows, int tile_cols) {
  const int tiles_c = (a.cols + tile_cols - 1) / tile_cols;
  const int row0 = static_cast<int>(index / tiles_c) * tile_rows;
  const int col0 = static_cast<int>(index % tiles_c) * tile_cols;
  return {row0, col0, row0 + tile_rows > a.rows || col0 + tile_cols > a.cols};
}

// The same tiles numbered down the input's tile columns: blocks that run at the same time write
// whole output rows next to each other and spread their reads over many input rows. Measured
// 3-4% faster than row order for the same bytes (07_tuned.cu). Our reading: reads reach DRAM in
// the order they are issued, writes only when L2 evicts them, so the written side is the one
// that needs to be contiguous (docs/guide/transpose.md).
template <class T, class Index>
__device__ __forceinline__ Tile tile_down_columns(const Args<T>& a, Index index, int tile_rows, int tile_cols) {
  const auto tiles_r = static_cast<Index>((a.rows + tile_rows - 1) / tile_rows);
  const int row0 = static_cast<int>(index % tiles_r) * tile_rows;
  const int col0 = static_cast<int>(index / tiles_r) * tile_cols;
  return {row0, col0, row0 + tile_rows > a.rows || col0 + tile_cols > a.cols};
}

template <class T>
inline long long tile_count(const Args<T>& a, int tile_rows, int tile_cols) {
  return static_cast<long long>((a.rows + tile_rows - 1) / tile_rows) *
         ((a.cols + tile_cols - 1) / tile_cols);
}

inline unsigned grid_of(long long blocks) {
  return smemlab::detail::grid_1d(blocks, "transpose: too many tiles for one grid");
}

// Reads element (r, c) of a rows x cols matrix; on edge tiles (Checked) positions outside it read
// as nothing and are never written back.
template <bool Checked, class T>
__device__ __forceinline__ T load(const T* p, int r, int c, int ld, int rows, int cols) {
  if constexpr (Checked) {
    if (r >= rows || c >= cols) return T();
  }
  return p[static_cast<std::size_t>(r) * ld + c];
}

template <bool Checked, class T>
__device__ __forceinline__ void store(T* p, int r, int c, int ld, int rows, int cols, T v) {
  if constexpr (Checked) {
    if (r >= rows || c >= cols) return;
  }
  p[static_cast<std::size_t>(r) * ld + c] = v;
}

// Where element (r, c) of a 32 x 32 tile lives in shared memory.
struct PlainLayout {  // row-major: a column read puts all 32 lanes in one bank
  static constexpr int kWords = kTile * kTile;
  __device__ static int at(int r, int c) { return r * kTile + c; }
};
struct PaddedLayout {  // rows of 33: a column read steps one bank per lane
  static constexpr int kWords = kTile * (kTile + 1);
  __device__ static int at(int r, int c) { return r * (kTile + 1) + c; }
};
struct SwizzledLayout {  // column c of row r stored at c XOR r: distinct banks, no extra space
  static constexpr int kWords = kTile * kTile;
  __device__ static int at(int r, int c) { return r * kTile + (c ^ r); }
};

}  // namespace smemlab::transpose::detail
