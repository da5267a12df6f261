// 03 — the 16x16 tile of 02 in dynamic shared memory (extern __shared__, size at launch). Changed
// from 02: where the tile lives. With the tile edge a compile-time constant the kernel is the same
// machine code as the static one: dynamic allocation itself costs nothing (the launch reserves the
// bytes either way). With the edge a run-time argument, as in the tutorial “Shared Memory and Bank
// Conflicts”, the compiler can neither unroll the inner loop nor fold the shared-memory offsets
// into immediates: expect loop overhead and index arithmetic per FMA, so a visible slowdown that
// that tutorial attributes to "runtime allocation".
#include "matmul/square_tile.cuh"
#include "matmul/models.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {
namespace {

constexpr int kTile = 16;

template <class Tile>
__global__ void __launch_bounds__(1024) tiled_dynamic_kernel(GemmArgs g, Tile tile) {
  extern __shared__ float smem[];  // one array: A's tile, then B's
  square_tile_gemm(g, tile, smem, smem + tile.value * tile.value);
}

template <class Tile>
void launch_dynamic(const GemmArgs& g, const LaunchContext& ctx, Tile tile) {
  const int t = tile.value;
  const std::size_t smem_bytes = 2 * sizeof(float) * t * t;
  tiled_dynamic_kernel<<<grid_for(g, t, t), dim3(t, t), smem_bytes, ctx.stream>>>(g, tile);
  SMEMLAB_LAUNCH_CHECK();
}

void launch_dynamic_const(const GemmArgs& g, const LaunchContext& ctx) {
  launch_dynamic(g, ctx, FixedTile<kTile>{});
}

void launch_dynamic_runtime(const GemmArgs& g, const LaunchContext& ctx) {
  launch_dynamic(g, ctx, RuntimeTile{kTile});
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kBankConflicts};

}  // namespace

GemmVariant tiled_dynamic_const_variant() {
  return {{.family = "matmul",
           .name = "dyn_tile16_const",
           .description = "16x16 tiles in extern __shared__ memory, tile edge known at compile time",
           .technique = "dynamic shared memory costs nothing when the tile is still a constant",
           .tutorials = kTutorials,
           .smem = SmemKind::dynamic_alloc,
           .model = [](const Shape& s, DType) { return models::square_tile(s, 16, true, false); }},
          launch_dynamic_const};
}

GemmVariant tiled_dynamic_runtime_variant() {
  return {{.family = "matmul",
           .name = "dyn_tile16_runtime",
           .description = "16x16 tiles in extern __shared__ memory, tile edge a run-time argument",
           .technique = "a run-time tile edge blocks unrolling: loop and index overhead per FMA",
           .tutorials = kTutorials,
           .smem = SmemKind::dynamic_alloc,
           .model = [](const Shape& s, DType) { return models::square_tile(s, 16, true, true); }},
          launch_dynamic_runtime};
}

}  // namespace smemlab::matmul::detail
