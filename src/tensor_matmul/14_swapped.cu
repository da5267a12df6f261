// 14 — tf32 with B as the caller stores it: the block computes a tile of C's transpose.
// Changed from 12: in tf32, wgmma reads both operands from shared memory K-major only, so the
// Hopper steps first transpose B (row-major, N contiguous) in a separate pass, which reads and
// writes K x N floats and then reads them again. Here each block computes C^T = B^T A^T
// instead: wgmma's A operand, which may come from registers in any order, is B's tile, loaded
// into registers from the row-major copy TMA made of it; wgmma's B operand is A's tile,
// K-major as A is stored. The epilogue stores each accumulator at its transposed place in C.
// Should buy: the transpose pass, 8 x K x N bytes of DRAM traffic and a launch: about 45 of
// 397 us at 4096^3 on an H100 (11%), and half the call at 256 x 256 x 65536, where B is as
// large as A. It costs 16 shared-memory loads a thread per K-step beside wgmma's reads.
// The three tiles (256 x 128, 128 x 128 and 128 x 64 of C, K whole or in ranges as 12 divides
// it) are the chooser's (16) tf32 counterparts of 12's.
#include <stdexcept>
#include <string_view>

#include "core/occupancy.hpp"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul::detail {
namespace {

// Tiles of C's transpose: rows (along N) 64 x consumers, columns (along M) 256 or 128.
using SwappedWide = WgmmaConfig<2, 1, 256, 4, true, PersistentTiles, RegisterStore, true>;    // C: 256 x 128
using SwappedSquare = WgmmaConfig<2, 1, 128, 5, true, PersistentTiles, RegisterStore, true>;  // C: 128 x 128
using SwappedNarrow = WgmmaConfig<1, 1, 128, 8, true, PersistentTiles, RegisterStore, true>;  // C: 128 x 64
constexpr int kSwappedRasterGroup = 8;
constexpr DType kTf32Only[] = {DType::tf32};

}  // namespace

void launch_swapped_kernel(std::string_view kernel, int splits, const GemmArgs& args,
                           const LaunchContext& ctx) {
  if (kernel == "swapped256x128") {
    launch_wgmma<SwappedWide>(args, ctx, kSwappedRasterGroup, splits);
  } else if (kernel == "swapped128x128") {
    launch_wgmma<SwappedSquare>(args, ctx, kSwappedRasterGroup, splits);
  } else if (kernel == "swapped128x64") {
    launch_wgmma<SwappedNarrow>(args, ctx, kSwappedRasterGroup, splits);
  } else {
    throw std::logic_error("unknown swapped Hopper kernel configuration");
  }
}

TensorVariant swapped_variant() {
  return {
      {.family = "tensor-matmul",
       .name = "swapped",
       .description =
           "12 for tf32 without B's transpose: each block computes a tile of C's transpose, B's tile "
           "read into registers as wgmma's A operand",
       .technique = "operands swapped: wgmma's register operand takes B in any order, so B is read as stored",
       .smem = SmemKind::dynamic_alloc,
       .dtypes = kTf32Only,
       .model = wgmma_model<SwappedWide>,
       .unavailable = why_no_wgmma},
      [](const GemmArgs& g, const LaunchContext& ctx) {
        launch_wgmma<SwappedWide>(g, ctx, kSwappedRasterGroup,
                                  split_k_ranges(g.m, g.n, g.k, g.input, smemlab::detail::sm_count()));
      }};
}

}  // namespace smemlab::tensor_matmul::detail
