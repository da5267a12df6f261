// 04 — the bank-conflicting tile kernel of the tutorial “Shared Memory and Bank Conflicts”, and the
// same with one column of padding. Changed from 02: threadIdx.x walks the rows of C instead of the
// columns, and the tiles are stored and read column-first (a_tile[tx][k]). A warp of the 16x16
// block holds 16 values of tx, 16 floats apart in shared memory: only banks 0 and 16 (plus ty) are
// hit, an 8-way conflict on the A-tile reads and on both tile stores. Padding each row to 17 floats
// puts consecutive tx in consecutive banks and removes the conflicts. What padding cannot fix: with
// tx on rows, a warp's global loads of A and its stores of C touch 16 different rows (16 sectors
// per request instead of 2-4), so even the padded kernel should stay well behind 02. That
// tutorial's numbers show the same gap without naming its cause.
#include "matmul/gemm_device.cuh"
#include "matmul/models.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {
namespace {

constexpr int kTile = 16;

template <int Pad>
__global__ void __launch_bounds__(kTile* kTile) column_major_tile_kernel(GemmArgs g) {
  __shared__ float a_tile[kTile][kTile + Pad];  // a_tile[r][k] = A(row0 + r, k0 + k)
  __shared__ float b_tile[kTile][kTile + Pad];  // b_tile[k][c] = B(k0 + k, col0 + c)
  const int tx = static_cast<int>(threadIdx.x);  // row of C within the tile, as in the tutorial
  const int ty = static_cast<int>(threadIdx.y);  // column of C within the tile
  const BlockTile bt = block_tile(g, kTile, kTile);
  const int row = bt.row0 + tx;
  const int col = bt.col0 + ty;
  float acc = 0.0F;
  for_each_k_step(g.k, kTile, bt.edge, [&](auto checked, int k0) {
    constexpr bool kChecked = decltype(checked)::value;
    a_tile[tx][ty] = load_or_zero<kChecked>(g.a, row, k0 + ty, g.lda, g.m, g.k);
    b_tile[tx][ty] = load_or_zero<kChecked>(g.b, k0 + tx, col, g.ldb, g.k, g.n);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc += a_tile[tx][kk] * b_tile[kk][ty];
    __syncthreads();
  });
  epilogue(bt.edge, [&](auto checked) { store_c_if<decltype(checked)::value>(g, row, col, acc); });
}

template <int Pad>
void launch_column_major_tile(const GemmArgs& g, const LaunchContext& ctx) {
  column_major_tile_kernel<Pad><<<grid_for(g, kTile, kTile), dim3(kTile, kTile), 0, ctx.stream>>>(g);
  SMEMLAB_LAUNCH_CHECK();
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kBankConflicts};

}  // namespace

GemmVariant bank_conflict_variant() {
  return {{.family = "matmul",
           .name = "conflict_tile16",
           .description = "16x16 tile kernel indexed column-first: 8-way bank conflicts",
           .technique = "bank conflicts: 16 lanes 16 floats apart share 2 of the 32 banks",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType) { return models::column_first_tile(s, false); }},
          launch_column_major_tile<0>};
}

GemmVariant bank_conflict_padded_variant() {
  return {{.family = "matmul",
           .name = "conflict_tile16_padded",
           .description = "the conflicting kernel with rows padded to 17 floats",
           .technique = "padding: a 17-float row stride spreads 16 lanes over 16 banks",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType) { return models::column_first_tile(s, true); }},
          launch_column_major_tile<1>};
}

}  // namespace smemlab::matmul::detail
