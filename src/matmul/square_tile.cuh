#pragma once
// The square shared-memory tile algorithm of the tutorials “Primer (6): Shared Memory”, “Shared
// Memory and Bank Conflicts” and “Matrix Multiplication Using Shared Memory”, written once for the
// static and dynamic variants. The tile edge comes either as a compile-time constant (FixedTile) or
// as a run-time value (RuntimeTile): the only difference between the two dynamic variants, and the
// one that decides whether the inner loop can be unrolled.
#include "matmul/gemm_device.cuh"

namespace smemlab::matmul::detail {

template <int N>
struct FixedTile {
  static constexpr int value = N;
};

struct RuntimeTile {
  int value;
};

// Block (T, T): thread (tx, ty) computes C(row0 + ty, col0 + tx). Per K-step each thread stages
// one element of A and one of B, then does T multiply-adds from shared memory: a global load
// now serves T outputs. a_tile and b_tile are T*T floats of shared memory each.
template <class Tile>
__device__ __forceinline__ void square_tile_gemm(const GemmArgs& g, Tile tile, float* a_tile,
                                                 float* b_tile) {
  const int t = tile.value;
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const BlockTile bt = block_tile(g, t, t);
  const int row = bt.row0 + ty;
  const int col = bt.col0 + tx;
  float acc = 0.0F;
  for_each_k_step(g.k, t, bt.edge, [&](auto checked, int k0) {
    constexpr bool kChecked = decltype(checked)::value;
    a_tile[ty * t + tx] = load_or_zero<kChecked>(g.a, row, k0 + tx, g.lda, g.m, g.k);
    b_tile[ty * t + tx] = load_or_zero<kChecked>(g.b, k0 + ty, col, g.ldb, g.k, g.n);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < t; ++kk) acc += a_tile[ty * t + kk] * b_tile[kk * t + tx];
    __syncthreads();
  });
  epilogue(bt.edge, [&](auto checked) { store_c_if<decltype(checked)::value>(g, row, col, acc); });
}

}  // namespace smemlab::matmul::detail
