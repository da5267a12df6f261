// 02 — shared-memory tiles in static shared memory (the kernel of three of the tutorials), tile 16
// and 32. Changed from 01: each block stages a TILE x TILE piece of A and of B in shared memory and
// every thread reads them TILE times, so global loads per output fall from 2K to 2K/TILE. Should
// buy: several times the naive throughput, limited now by shared-memory bandwidth (two shared loads
// per FMA) rather than by global memory. Tile 32 halves global traffic against tile 16 but runs
// 1024 threads a block, which caps residency at two blocks per SM.
#include "matmul/square_tile.cuh"
#include "matmul/models.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {
namespace {

template <int T>
__global__ void __launch_bounds__(T* T) tiled_static_kernel(GemmArgs g) {
  __shared__ float a_tile[T][T];
  __shared__ float b_tile[T][T];
  square_tile_gemm(g, FixedTile<T>{}, &a_tile[0][0], &b_tile[0][0]);
}

template <int T>
void launch_tiled_static(const GemmArgs& g, const LaunchContext& ctx) {
  tiled_static_kernel<T><<<grid_for(g, T, T), dim3(T, T), 0, ctx.stream>>>(g);
  SMEMLAB_LAUNCH_CHECK();
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kPrimerSharedMemory, &tutorials::kBankConflicts,
                                          &tutorials::kGuideMatmul};

}  // namespace

GemmVariant tiled_static_variant_16() {
  return {{.family = "matmul",
           .name = "smem_tile16",
           .description = "16x16 shared-memory tiles of A and B, static __shared__ arrays",
           .technique = "tiling: each global load serves 16 outputs (K/8 loads per output)",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType) { return models::square_tile(s, 16, false, false); }},
          launch_tiled_static<16>};
}

GemmVariant tiled_static_variant_32() {
  return {{.family = "matmul",
           .name = "smem_tile32",
           .description = "32x32 shared-memory tiles of A and B, static __shared__ arrays",
           .technique = "tiling: each global load serves 32 outputs (K/16 loads per output)",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType) { return models::square_tile(s, 32, false, false); }},
          launch_tiled_static<32>};
}

}  // namespace smemlab::matmul::detail
