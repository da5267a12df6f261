// 12 — split-K on the Hopper kernel. Changed from 10: where C has fewer tiles than the GPU has
// SMs (a small output over a long K: 256 x 256 x 65536 is two 128 x 256 tiles for 132 SMs),
// each tile's K-steps are divided into ranges, one work item a tile and range, so that every SM
// gets work. Each item stores its partial sums, whole, into the workspace; a second kernel adds
// the ranges in order and writes C, so the result is the same on every run. Should buy: up to
// SMs / tiles times 10's speed on such shapes, less the partial sums' traffic (ranges x M x N
// floats written and read) and a second launch, a few microseconds; nothing where the tiles
// already fill the GPU, where the step leaves K whole.
// The other tile shapes of this file (64 x 64, 64 x 128 and 128 x 128, one and two consumers)
// are for the chooser (16): small M, and outputs whose 128 x 256 tiles fill the SMs poorly.
#include <algorithm>
#include <string>

#include "core/occupancy.hpp"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul {
namespace detail {
namespace {

using WideConfig = WgmmaConfig<2, 1, 256, 4, true, PersistentTiles, TmaStore>;    // 10's kernel
using SquareConfig = WgmmaConfig<2, 1, 128, 5, true, PersistentTiles, TmaStore>;  // 128 x 128
using NarrowConfig = WgmmaConfig<1, 1, 128, 8, true, PersistentTiles, TmaStore>;  // 64 x 128: one consumer
// 64 x 64: for few rows of C, twice 64 x 128's blocks over B's columns with K whole.
using ThinConfig = WgmmaConfig<1, 1, 64, 12, true, PersistentTiles, TmaStore>;
constexpr int kSplitRasterGroup = 8;

long long wide_tiles(int m, int n) {
  return static_cast<long long>((m + WideConfig::kBM - 1) / WideConfig::kBM) * ((n + WideConfig::kBN - 1) / WideConfig::kBN);
}

std::string launch_plan(const Shape& s, DType type) {
  const GemmShape g = gemm_shape(s);
  const int sms = hopper_plan_sms();
  const int splits = split_k_ranges(g.m, g.n, g.k, type, sms);
  const long long tiles = wide_tiles(g.m, g.n);
  if (splits == 1) return std::to_string(tiles) + " tiles of 128x256 for " + std::to_string(sms) + " SMs: K whole (10's kernel)";
  return std::to_string(tiles) + " tiles of 128x256 x " + std::to_string(splits) + " ranges of K = " +
         std::to_string(tiles * splits) + " items for " + std::to_string(sms) + " SMs; partial sums " +
         std::to_string(splits) + " x " + std::to_string(g.m) + " x " + std::to_string(g.n) +
         " floats, added in range order";
}

}  // namespace

void launch_wgmma_kernel(std::string_view kernel, int splits, const GemmArgs& args, const LaunchContext& ctx) {
  if (kernel == "wgmma128x256") {
    launch_wgmma<WideConfig, true>(args, ctx, kSplitRasterGroup, splits);
  } else if (kernel == "wgmma128x128") {
    launch_wgmma<SquareConfig, true>(args, ctx, kSplitRasterGroup, splits);
  } else if (kernel == "wgmma64x128") {
    launch_wgmma<NarrowConfig, true>(args, ctx, kSplitRasterGroup, splits);
  } else if (kernel == "wgmma64x64") {
    launch_wgmma<ThinConfig, true>(args, ctx, kSplitRasterGroup, splits);
  } else {
    throw std::logic_error("unknown Hopper kernel configuration");
  }
}

TensorVariant split_k_variant() {
  return {{.family = "tensor-matmul",
           .name = "split_k",
           .description = "10 with each tile's K divided into ranges where the tiles do not fill the SMs; partial "
                          "sums added in a fixed order by a second kernel",
           .technique = "split-K: more work items than tiles, a deterministic sum of the parts",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = wgmma_model<WideConfig>,
           .launch_plan = launch_plan,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_wgmma<WideConfig>(g, ctx, kSplitRasterGroup,
                                     split_k_ranges(g.m, g.n, g.k, g.input, smemlab::detail::sm_count()));
          }};
}

}  // namespace detail

int split_k_ranges(int m, int n, int k, DType input, int sms) {
  const long long tiles = detail::wide_tiles(m, n);
  if (tiles * 2 > sms) return 1;  // half the SMs or more busy: the parts' traffic costs more than it buys
  const int k_step = detail::k_step(input);
  const int steps = detail::k_ranges(k, k_step, 1).steps_per_range;
  // Every range keeps at least two rings of stages, so that copies overlap the math.
  const int most = std::max(1, steps / (2 * detail::WideConfig::kStages));
  return detail::k_ranges(k, k_step, std::min(most, static_cast<int>(sms / tiles))).count;
}

}  // namespace smemlab::tensor_matmul
