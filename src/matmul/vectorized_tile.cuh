#pragma once
// The 128x128x8 block tile of steps 07 and 08, written once: both load A and B 16 bytes at a
// time where the rows are aligned, keep A transposed in shared memory (a_tile[k][m]) so that
// a thread's A values for one k are contiguous, and read both fragments 16 bytes at a time.
// They differ in two layout choices, which are the whole of step 08:
//  - ConflictFree = false: a_tile rows are 128 floats, and a thread owns an 8x8 block of C.
//    Storing the transposed A float4 then sends lane pairs 128 floats apart to one bank
//    (2-way), and the 16 lanes of a warp read B 32 bytes apart (2 wavefronts' worth of data
//    spread over 4).
//  - ConflictFree = true: a_tile rows are padded to 132 floats, and a thread owns four 4x4
//    blocks of C, 64 rows and 64 columns apart, so a warp's B reads are 256 contiguous bytes.
#include "matmul/gemm_device.cuh"
#include "smemlab/launch.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {

struct VectorizedTile {
  static constexpr int kBM = 128;
  static constexpr int kBN = 128;
  static constexpr int kBK = 8;
  static constexpr int kTM = 8;
  static constexpr int kTN = 8;
  static constexpr int kThreads = (kBM / kTM) * (kBN / kTN);
  static_assert(kBM * kBK == 4 * kThreads && kBK * kBN == 4 * kThreads,
                "each thread loads one float4 of A and one of B per K-step");
};

template <bool ConflictFree, bool Vector>
__global__ void __launch_bounds__(VectorizedTile::kThreads) vectorized_tile_kernel(GemmArgs g) {
  using T = VectorizedTile;
  constexpr int kARow = ConflictFree ? T::kBM + 4 : T::kBM;  // floats per a_tile row
  // Where a thread's 4-wide pieces of C start: 4 rows (columns) apart for a contiguous 8x8
  // block, or 64 apart for four spread 4x4 blocks.
  constexpr int kRowSpread = ConflictFree ? T::kBM / 2 : 4;
  constexpr int kColSpread = ConflictFree ? T::kBN / 2 : 4;
  __shared__ __align__(16) float a_tile[T::kBK * kARow];
  __shared__ __align__(16) float b_tile[T::kBK * T::kBN];
  const int tid = static_cast<int>(threadIdx.x);
  const int thread_row = tid / (T::kBN / T::kTN);
  const int thread_col = tid % (T::kBN / T::kTN);
  const int row_base = ConflictFree ? thread_row * 4 : thread_row * T::kTM;
  const int col_base = ConflictFree ? thread_col * 4 : thread_col * T::kTN;
  const int a_row = tid / (T::kBK / 4);  // the float4 of A this thread loads
  const int a_k = tid % (T::kBK / 4) * 4;
  const int b_row = tid / (T::kBN / 4);  // and of B
  const int b_col = tid % (T::kBN / 4) * 4;
  const BlockTile bt = block_tile(g, T::kBM, T::kBN);
  float acc[T::kTM][T::kTN] = {};
  for_each_k_step(g.k, T::kBK, bt.edge, [&](auto checked, int k0) {
    constexpr bool kChecked = decltype(checked)::value;
    const float4 a = load4_or_zero<kChecked, Vector>(g.a, bt.row0 + a_row, k0 + a_k, g.lda, g.m, g.k);
    a_tile[(a_k + 0) * kARow + a_row] = a.x;
    a_tile[(a_k + 1) * kARow + a_row] = a.y;
    a_tile[(a_k + 2) * kARow + a_row] = a.z;
    a_tile[(a_k + 3) * kARow + a_row] = a.w;
    *reinterpret_cast<float4*>(&b_tile[b_row * T::kBN + b_col]) =
        load4_or_zero<kChecked, Vector>(g.b, k0 + b_row, bt.col0 + b_col, g.ldb, g.k, g.n);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < T::kBK; ++kk) {
      float a_frag[T::kTM];
      float b_frag[T::kTN];
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float4 av = *reinterpret_cast<const float4*>(&a_tile[kk * kARow + row_base + h * kRowSpread]);
        const float4 bv = *reinterpret_cast<const float4*>(&b_tile[kk * T::kBN + col_base + h * kColSpread]);
        a_frag[4 * h + 0] = av.x, a_frag[4 * h + 1] = av.y, a_frag[4 * h + 2] = av.z, a_frag[4 * h + 3] = av.w;
        b_frag[4 * h + 0] = bv.x, b_frag[4 * h + 1] = bv.y, b_frag[4 * h + 2] = bv.z, b_frag[4 * h + 3] = bv.w;
      }
#pragma unroll
      for (int i = 0; i < T::kTM; ++i)
#pragma unroll
        for (int j = 0; j < T::kTN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
    }
    __syncthreads();
  });
  const bool vector_c = Vector && rows_are_16b_aligned(g.c, g.ldc);
  const auto store_all = [&](auto checked, auto vector) {
    constexpr bool kChecked = decltype(checked)::value;
    constexpr bool kVectorC = decltype(vector)::value;
#pragma unroll
    for (int i = 0; i < T::kTM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        store_c4_if<kChecked, kVectorC>(
            g, bt.row0 + row_base + (i / 4) * kRowSpread + i % 4, bt.col0 + col_base + h * kColSpread,
            {acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]});
  };
  epilogue(bt.edge, [&](auto checked) {
    if (vector_c) {
      store_all(checked, std::true_type{});
    } else {
      store_all(checked, std::false_type{});
    }
  });
}

// The 16-byte path needs A and B rows aligned; otherwise the same kernel loads element-wise.
template <bool ConflictFree>
void launch_vectorized_tile(const GemmArgs& g, const LaunchContext& ctx) {
  const unsigned grid = grid_for(g, VectorizedTile::kBM, VectorizedTile::kBN);
  if (rows_are_16b_aligned(g.a, g.lda) && rows_are_16b_aligned(g.b, g.ldb)) {
    vectorized_tile_kernel<ConflictFree, true><<<grid, VectorizedTile::kThreads, 0, ctx.stream>>>(g);
  } else {
    vectorized_tile_kernel<ConflictFree, false><<<grid, VectorizedTile::kThreads, 0, ctx.stream>>>(g);
  }
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace smemlab::matmul::detail
