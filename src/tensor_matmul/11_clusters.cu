// 11 — thread-block clusters with TMA multicast. Changed from 10: blocks run in clusters of two
// on tiles one above the other, which need the same tile of B. Each block copies half of it
// and the copy engine writes that half into both blocks' shared memory (multicast), so B
// crosses from L2 once per pair instead of twice: a quarter less L2-to-SM traffic. A stage is
// refilled only when the consumers of both blocks are done with it (they arrive on each other's
// empty barriers). Should buy: little where L2 keeps up (55% of its peak in 09 at 4096^3);
// +1-3% from fewer L2 requests waiting behind each other.
// The cluster shape is chosen per problem (cluster_rows): a pair's blocks wait for each other at
// every stage, which pays only where each cluster walks enough pairs of tiles; on smaller
// outputs the step runs single blocks, which is 10's kernel.
#include <stdexcept>
#include <string>

#include "smemlab/tensor_matmul.hpp"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul {
namespace detail {
namespace {

using PairedConfig = WgmmaConfig<2, 1, 256, 4, true, ClusterTiles<2>, TmaStore>;
using SingleConfig = WgmmaConfig<2, 1, 256, 4, true, PersistentTiles, TmaStore>;  // 10's kernel
static_assert(PairedConfig::kBM == SingleConfig::kBM && PairedConfig::kBN == SingleConfig::kBN);
constexpr int kClusterRasterGroup = 8;
// Measured on an H200 (bf16 and half, 66 resident clusters; docs/results/data/
// tensor-clusters-h200.json): against single blocks, pairs gain 1-3% from 6 pairs of tiles per
// cluster up (5120^3 to 8192^3), 0.4% at 3.9 (4096^3, within the spread), and lose 0.5-2% at 2.2
// or fewer.
constexpr long long kMinPairsPerCluster = 5;

// Pairs of vertically adjacent tiles in an m x n output.
long long tile_pairs(long long m, long long n) {
  return ((m + 2 * PairedConfig::kBM - 1) / (2 * PairedConfig::kBM)) * ((n + PairedConfig::kBN - 1) / PairedConfig::kBN);
}

// Clusters of the paired kernel resident at once on the current device.
int resident_pairs(DType input) {
  int clusters = 0;
  with_input_type(input, [&](auto e) { clusters = resident_clusters<PairedConfig, decltype(e)>(); });
  return clusters;
}

void launch_clusters(const GemmArgs& g, const LaunchContext& ctx) {
  if (cluster_rows(g.m, g.n, resident_pairs(g.input)) == PairedConfig::kClusterM)
    launch_wgmma<PairedConfig>(g, ctx, kClusterRasterGroup);
  else
    launch_wgmma<SingleConfig>(g, ctx, kClusterRasterGroup);
}

// explain: the cluster shape on the GPU at hand, or with an H200's clusters where it cannot run
// the kernel.
struct ClusterPlan {
  int rows;
  int resident;
  std::string where;
};
ClusterPlan cluster_plan(const Shape& s, DType type) {
  int resident = 132 / 2;
  std::string where = "assumed: an H200's 132 SMs in twos";
  if (why_no_wgmma().empty()) {
    resident = resident_pairs(type);
    where = "resident on this GPU";
  }
  const GemmShape g = gemm_shape(s);
  return {cluster_rows(g.m, g.n, resident), resident, where};
}

std::string launch_plan(const Shape& s, DType type) {
  const ClusterPlan p = cluster_plan(s, type);
  const GemmShape g = gemm_shape(s);
  const std::string walk = std::to_string(tile_pairs(g.m, g.n)) + " pairs of " +
                           std::to_string(PairedConfig::kBM) + "x" + std::to_string(PairedConfig::kBN) +
                           " tiles for " + std::to_string(p.resident) + " clusters (" + p.where + ")";
  return p.rows == 2 ? "clusters of two blocks, B multicast: " + walk
                     : "single blocks (10's kernel): " + walk + ", fewer than " + std::to_string(kMinPairsPerCluster) +
                           " a cluster";
}

AccessModel clusters_model(const Shape& s, DType type) {
  return cluster_plan(s, type).rows == 2 ? wgmma_model<PairedConfig>(s, type) : wgmma_model<SingleConfig>(s, type);
}

}  // namespace

void launch_cluster_pairs(const GemmArgs& args, const LaunchContext& ctx) {
  launch_wgmma<PairedConfig, true>(args, ctx, kClusterRasterGroup);
}

TensorVariant clusters_variant() {
  return {{.family = "tensor-matmul",
           .name = "clusters",
           .description = "10 in clusters of two blocks on vertically adjacent tiles, B's tile multicast by TMA to "
                          "both, where the output has pairs enough",
           .technique = "thread-block clusters: one copy of a shared operand feeds two SMs",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = clusters_model,
           .launch_plan = launch_plan,
           .unavailable = why_no_wgmma},
          launch_clusters};
}

}  // namespace detail

int cluster_rows(int m, int n, int resident_clusters) {
  if (m < 0 || n < 0 || resident_clusters < 1) throw std::invalid_argument("cluster_rows: negative size or no cluster");
  return detail::tile_pairs(m, n) >= detail::kMinPairsPerCluster * resident_clusters ? 2 : 1;
}

}  // namespace smemlab::tensor_matmul
