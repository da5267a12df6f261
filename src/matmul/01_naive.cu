// 01 — naive: one thread per element of C, everything from global memory (the baseline of the
// tutorial “Primer (6): Shared Memory”). Each thread reads a whole row of A and column of B: 2K
// loads for 2K flops, arithmetic intensity 0.25 flop/byte. Threads of a warp take consecutive
// columns, so B and C accesses coalesce and the A element is one broadcast; the caches, not the
// program, provide reuse.
#include "matmul/gemm_device.cuh"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {
namespace {

constexpr int kBlockCols = 32;  // a warp spans 32 consecutive columns of C
constexpr int kBlockRows = 8;

__global__ void __launch_bounds__(kBlockCols* kBlockRows) naive_kernel(GemmArgs g) {
  const BlockTile tile = block_tile(g, kBlockRows, kBlockCols);
  const int row = tile.row0 + static_cast<int>(threadIdx.y);
  const int col = tile.col0 + static_cast<int>(threadIdx.x);
  if (row >= g.m || col >= g.n) return;
  const float* a = g.a + static_cast<std::size_t>(row) * g.lda;
  const float* b = g.b + col;
  float acc = 0.0F;
  for (int k = 0; k < g.k; ++k) acc += a[k] * b[static_cast<std::size_t>(k) * g.ldb];
  store_c(g.c + static_cast<std::size_t>(row) * g.ldc + col, acc, g.alpha, g.beta);
}

void launch_naive(const GemmArgs& g, const LaunchContext& ctx) {
  naive_kernel<<<grid_for(g, kBlockRows, kBlockCols), dim3(kBlockCols, kBlockRows), 0,
                 ctx.stream>>>(g);
  SMEMLAB_LAUNCH_CHECK();
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kPrimerSharedMemory};

}  // namespace

GemmVariant naive_variant() {
  return {{.family = "matmul",
           .name = "naive",
           .description = "one thread per output, A and B read from global memory",
           .technique = "baseline: 2K global loads per output, reuse left to the caches",
           .tutorials = kTutorials,
           .smem = SmemKind::none,
           .why_no_model = "uses no shared memory"},
          launch_naive};
}

}  // namespace smemlab::matmul::detail
