// 04 — items in registers, warps by shuffles. Changed from 03: each thread scans 8 consecutive
// elements in its registers, a warp scans its 32 threads' totals with 5 shuffles, and shared
// memory keeps only one total per warp, plus the exchange that turns coalesced loads into each
// thread's consecutive elements (padded: conflict-free). Should buy: 4,096 elements a block for
// 16 warp totals through shared memory, where the tree kept every element there for 20 rounds,
// each behind a barrier. Still scan then propagate: n read twice, written twice.
#include "scan/models.hpp"
#include "scan/propagate.cuh"
#include "scan/variants.hpp"

namespace smemlab::scan::detail {
namespace {

constexpr int kThreads = 512;
constexpr int kItems = 8;

template <class W>
__global__ void __launch_bounds__(kThreads)
    warp_shuffle_kernel(const W* __restrict__ in, W* out, std::size_t n, bool exclusive, W* totals) {
  using Tile = TileScan<W, kThreads, kItems>;
  __shared__ typename Tile::Storage storage;
  Tile::scan_tile(in, out, n, std::size_t{blockIdx.x} * Tile::kTile, false, exclusive, storage, [&](W total) {
    if (totals != nullptr && threadIdx.x == 0) totals[blockIdx.x] = total;
    return W(0);
  });
}

template <class W>
void pass(const W* in, W* out, std::size_t n, bool exclusive, W* totals, cudaStream_t stream) {
  warp_shuffle_kernel<<<grid_size(ceil_div(n, kThreads * kItems)), kThreads, 0, stream>>>(in, out, n,
                                                                                          exclusive, totals);
  SMEMLAB_LAUNCH_CHECK();
}

template <class W>
struct WarpShuffle {
  static std::size_t workspace(std::size_t n) {
    return levels_workspace_bytes(n, kThreads * kItems, sizeof(W));
  }
  static void run(const W* in, W* out, std::size_t n, bool exclusive, void* ws, cudaStream_t stream) {
    scan_then_propagate<W>(in, out, n, exclusive, ws, kThreads * kItems, pass<W>, stream);
  }
};

}  // namespace

ScanVariant warp_shuffle_variant() {
  return {{.family = "scan",
           .name = "warp_shuffle",
           .description = "8 elements a thread in registers, warp scans by shuffles, warp totals shared",
           .technique = "registers and shuffles: shared memory for 16 warp totals, not a tree",
           .smem = SmemKind::static_alloc,
           .model = models::warp_shuffle},
          both_types<WarpShuffle>()};
}

}  // namespace smemlab::scan::detail
