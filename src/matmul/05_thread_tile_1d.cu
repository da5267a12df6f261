// 05 — 1D thread tiling, from the tutorial “Matmul Optimisation in Practice”: 64x64 block tile,
// K-step 8, each thread computes a column of 8 outputs. Changed from 02: a thread keeps 8
// accumulators and reuses one B value from shared memory for 8 FMAs, so shared loads per FMA fall
// from 2 to 9/8, and the 64x64 tile halves global loads per output again (K/32 instead of K/16).
// Should buy: roughly twice the tiled kernel, as that tutorial's table shows; the A-tile reads are
// broadcasts, conflict-free.
#include "matmul/gemm_device.cuh"
#include "matmul/models.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {
namespace {

constexpr int kBM = 64;  // rows of C per block
constexpr int kBN = 64;  // columns of C per block
constexpr int kBK = 8;   // depth of a K-step
constexpr int kTM = 8;   // outputs per thread, down a column
constexpr int kThreads = kBM * kBN / kTM;
static_assert(kThreads == kBM * kBK && kThreads == kBK * kBN,
              "each thread stages exactly one element of each tile");

__global__ void __launch_bounds__(kThreads) thread_tile_1d_kernel(GemmArgs g) {
  __shared__ float a_tile[kBM * kBK];
  __shared__ float b_tile[kBK * kBN];
  const int tid = static_cast<int>(threadIdx.x);
  const int thread_row = tid / kBN;  // which group of kTM rows
  const int thread_col = tid % kBN;
  const int a_row = tid / kBK;
  const int a_col = tid % kBK;
  const int b_row = tid / kBN;
  const int b_col = tid % kBN;
  const BlockTile bt = block_tile(g, kBM, kBN);
  float acc[kTM] = {};
  for_each_k_step(g.k, kBK, bt.edge, [&](auto checked, int k0) {
    constexpr bool kChecked = decltype(checked)::value;
    a_tile[a_row * kBK + a_col] =
        load_or_zero<kChecked>(g.a, bt.row0 + a_row, k0 + a_col, g.lda, g.m, g.k);
    b_tile[b_row * kBN + b_col] =
        load_or_zero<kChecked>(g.b, k0 + b_row, bt.col0 + b_col, g.ldb, g.k, g.n);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      const float b = b_tile[kk * kBN + thread_col];
#pragma unroll
      for (int i = 0; i < kTM; ++i) acc[i] += a_tile[(thread_row * kTM + i) * kBK + kk] * b;
    }
    __syncthreads();
  });
  epilogue(bt.edge, [&](auto checked) {
#pragma unroll
    for (int i = 0; i < kTM; ++i)
      store_c_if<decltype(checked)::value>(g, bt.row0 + thread_row * kTM + i,
                                           bt.col0 + thread_col, acc[i]);
  });
}

void launch_thread_tile_1d(const GemmArgs& g, const LaunchContext& ctx) {
  thread_tile_1d_kernel<<<grid_for(g, kBM, kBN), kThreads, 0, ctx.stream>>>(g);
  SMEMLAB_LAUNCH_CHECK();
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kMatmulInPractice};

}  // namespace

GemmVariant thread_tile_1d_variant() {
  return {{.family = "matmul",
           .name = "thread_tile_1d",
           .description = "64x64 block tile, K-step 8, 8 outputs per thread",
           .technique = "1D thread tiling: one shared B value feeds 8 FMAs; K/32 global loads "
                        "per output",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType) { return models::thread_tile_1d(s); }},
          launch_thread_tile_1d};
}

}  // namespace smemlab::matmul::detail
