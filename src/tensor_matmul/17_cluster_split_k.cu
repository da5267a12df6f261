// 17 — split-K on the Hopper kernel without a second kernel: K's ranges added in a cluster.
// Changed from 12: the blocks of one tile's ranges (up to 8) are launched as a thread-block
// cluster. Each block leaves its sums in its own shared memory (the ring of stages, drained once
// its range is done), and then adds a share of the tile over every block's sums through
// distributed shared memory, range 0 first, and stores it to C, as step 13 does for its thin
// mma.sync tiles. Should buy: 12's second launch (a few microseconds) and its partial sums'
// traffic (ranges x M x N floats written, then read), which weigh most where the product is
// short: few rows of C (33 x 4096 x 4096: 32 tiles of 64 x 128 for 132 SMs, K whole reads B
// with a quarter of the SMs) or a small output over a long K. Results are bitwise the same
// from run to run; another number of ranges adds in another order and rounds differently.
// The step runs 12's 64 x 128 tile, with as many ranges (up to 8) as keep every cluster resident
// at once. The default call (16) does not weigh it: where its model chose it, the call ran slower
// (docs/perf/tensor-matmul.md, "17 — split-K added in a cluster").
#include <algorithm>
#include <string>

#include "tensor_matmul/models.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul {
namespace detail {
namespace {

// 12's 64 x 128 tile (one consumer warpgroup, 8 stages: one block an SM), its ranges in clusters.
using NarrowRanges = WgmmaConfig<1, 1, 128, 8, true, ClusterRanges, ClusterSum>;
constexpr int kRasterGroup = 8;
// Without a GPU (explain), the residency `smemlab info` printed on an H100 80GB HBM3.
constexpr ClusterResidency kH100Residency{132, 132, 117, 120, 110, 102, 105, 120};

long long narrow_tiles(int m, int n) {
  return static_cast<long long>((m + NarrowRanges::kBM - 1) / NarrowRanges::kBM) *
         ((n + NarrowRanges::kBN - 1) / NarrowRanges::kBN);
}

// This GPU's, or without one the H100's.
const ClusterResidency& cluster_blocks() {
  return why_no_wgmma().empty() ? current_cluster_residency() : kH100Residency;
}

AccessModel model(const Shape& s, DType type) {
  const GemmShape g = gemm_shape(s);
  using Cfg = NarrowRanges;
  return models::wgmma_tiles(s, type,
                             {Cfg::kConsumers, Cfg::kMTiles, Cfg::kBN, Cfg::kStages, Cfg::kSpecialized,
                              Cfg::kPersistent, Cfg::kTmaStore, Cfg::kClusterM, Cfg::kSmemBytes, Cfg::kSwapped,
                              cluster_split_ranges(g.m, g.n, g.k, type, cluster_blocks())});
}

std::string launch_plan(const Shape& s, DType type) {
  const GemmShape g = gemm_shape(s);
  const int sms = cluster_blocks().front();
  const int ranges = cluster_split_ranges(g.m, g.n, g.k, type, cluster_blocks());
  const long long tiles = narrow_tiles(g.m, g.n);
  const std::string out = std::to_string(tiles) + " tiles of 64x128 for " + std::to_string(sms) + " SMs";
  if (ranges == 1) return out + ": K whole";
  return out + ", K in " + std::to_string(ranges) + " ranges: " + std::to_string(tiles) + " clusters of " +
         std::to_string(ranges) + " blocks (" + std::to_string(cluster_blocks()[ranges - 1]) +
         " blocks resident at once) add their sums in distributed shared memory";
}

}  // namespace

TensorVariant cluster_split_k_variant() {
  return {{.family = "tensor-matmul",
           .name = "cluster_split_k",
           .description = "12's 64 x 128 tiles with K's ranges in a cluster of blocks, added in distributed shared "
                          "memory: no partial sums in DRAM, no second kernel",
           .technique = "split-K on chip: a cluster's blocks add their ranges' sums through distributed shared memory",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = model,
           .launch_plan = launch_plan,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_wgmma<NarrowRanges>(g, ctx, kRasterGroup,
                                       cluster_split_ranges(g.m, g.n, g.k, g.input, current_cluster_residency()));
          }};
}

}  // namespace detail

int cluster_split_ranges(int m, int n, int k, DType input, const ClusterResidency& cluster_blocks) {
  const long long tiles = detail::narrow_tiles(m, n);
  if (tiles * 2 > cluster_blocks.front()) return 1;  // half the SMs or more busy with K whole
  const int steps = detail::k_ranges(k, detail::k_step(input), 1).steps_per_range;
  for (int ranges = std::min(kMaxClusterRanges, steps / kMinStepsPerRange); ranges > 1; --ranges) {
    const detail::KRanges r = detail::k_ranges(k, detail::k_step(input), ranges);
    if (r.count == ranges && tiles * ranges <= cluster_blocks[ranges - 1]) return ranges;
  }
  return 1;
}

}  // namespace smemlab::tensor_matmul
