#pragma once
// Which tile of C a block computes, for the GEMM kernels of every family. Blocks are numbered
// in a 1D grid (no 65535 limit on either dimension). With group > 0 they are rasterised:
// consecutive blocks walk down a group of `group` block-rows before moving right, so the
// blocks resident together share their A and B tiles in L2.
namespace smemlab::detail {

struct TileOrigin {
  int row0, col0;
  bool edge;  // the tile reaches past the last row or column of C
};

// The tile of index b in that order (persistent blocks walk several).
__device__ __forceinline__ TileOrigin rastered_tile_at(int b, int m, int n, int bm, int bn, int group) {
  const int tiles_m = (m + bm - 1) / bm;
  const int tiles_n = (n + bn - 1) / bn;
  int tm = b / tiles_n;
  int tn = b % tiles_n;
  if (group > 0) {
    const int per_group = group * tiles_n;
    const int first = b / per_group * group;
    const int rows = min(group, tiles_m - first);
    const int local = b % per_group;
    tm = first + local % rows;
    tn = local / rows;
  }
  const int row0 = tm * bm;
  const int col0 = tn * bn;
  return {row0, col0, row0 + bm > m || col0 + bn > n};
}

__device__ __forceinline__ TileOrigin rastered_tile(int m, int n, int bm, int bn, int group) {
  return rastered_tile_at(static_cast<int>(blockIdx.x), m, n, bm, bn, group);
}

}  // namespace smemlab::detail
