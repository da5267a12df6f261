// 05 — reduce then scan. Changed from 04: the tiles' totals come first, from a pass that only
// reads (each thread sums its share as it loads, 16-byte loads where the arrays allow), then one
// block scans the totals into each tile's offset, then every tile is scanned once more from its
// offset and written. Tiles of 8,192 elements (16 a thread). Should buy: n read twice and written
// once instead of read twice and written twice, 3n words of traffic for 4n: about 1.3x at sizes
// where bandwidth rules.
#include "scan/drivers.hpp"
#include "scan/models.hpp"
#include "scan/scan_device.cuh"
#include "scan/variants.hpp"

namespace smemlab::scan::detail {
namespace {

constexpr int kThreads = 512;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;

// totals[b] = the sum of tile b, in a fixed order: each thread's share, then the warp by
// shuffles, then the warps in order.
template <class W>
__global__ void __launch_bounds__(kThreads)
    tile_totals_kernel(const W* __restrict__ in, std::size_t n, bool vector, W* totals) {
  __shared__ W warp_totals[kThreads / 32];
  const std::size_t base = std::size_t{blockIdx.x} * kTile;
  W sum = W(0);
  if (vector && n - base >= kTile) {
    const auto* v = reinterpret_cast<const uint4*>(in + base);
#pragma unroll
    for (int j = 0; j < kItems / 4; ++j) {
      const uint4 q = v[j * kThreads + threadIdx.x];
      sum = sum + bits_to_word<W>(q.x);
      sum = sum + bits_to_word<W>(q.y);
      sum = sum + bits_to_word<W>(q.z);
      sum = sum + bits_to_word<W>(q.w);
    }
  } else {
    for (std::size_t i = base + threadIdx.x; i < n && i < base + kTile; i += kThreads) sum = sum + in[i];
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum = sum + __shfl_down_sync(kFullWarp, sum, offset);
  if (threadIdx.x % 32 == 0) warp_totals[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    W all = warp_totals[0];
    for (int w = 1; w < kThreads / 32; ++w) all = all + warp_totals[w];
    totals[blockIdx.x] = all;
  }
}

// One block: totals[0, count) becomes its exclusive scan, tile by tile with a running carry.
template <class W>
__global__ void __launch_bounds__(kThreads) scan_totals_kernel(W* totals, std::size_t count) {
  using Tile = TileScan<W, kThreads, kItems>;
  __shared__ typename Tile::Storage storage;
  W carry = W(0);
  for (std::size_t base = 0; base < count; base += kTile) {
    Tile::scan_tile(totals, totals, count, base, false, true, storage, [&](W total) {
      const W before = carry;
      carry = carry + total;
      return before;
    });
  }
}

template <class W>
__global__ void __launch_bounds__(kThreads, 2)
    scan_from_offsets_kernel(const W* __restrict__ in, W* out, std::size_t n, bool vector, bool exclusive,
                             const W* offsets) {
  using Tile = TileScan<W, kThreads, kItems>;
  __shared__ typename Tile::Storage storage;
  Tile::scan_tile(in, out, n, std::size_t{blockIdx.x} * kTile, vector, exclusive, storage,
                  [&](W) { return offsets[blockIdx.x]; });
}

template <class W>
struct ReduceThenScan {
  static std::size_t workspace(std::size_t n) { return ceil_div(n, kTile) * sizeof(W); }
  static void run(const W* in, W* out, std::size_t n, bool exclusive, void* ws, cudaStream_t stream) {
    if (n == 0) return;
    const std::size_t tiles = ceil_div(n, kTile);
    const bool vector = aligned16(in) && aligned16(out);
    auto* const offsets = static_cast<W*>(ws);
    tile_totals_kernel<<<grid_size(tiles), kThreads, 0, stream>>>(in, n, vector, offsets);
    SMEMLAB_LAUNCH_CHECK();
    scan_totals_kernel<<<1, kThreads, 0, stream>>>(offsets, tiles);
    SMEMLAB_LAUNCH_CHECK();
    scan_from_offsets_kernel<<<grid_size(tiles), kThreads, 0, stream>>>(in, out, n, vector, exclusive,
                                                                        offsets);
    SMEMLAB_LAUNCH_CHECK();
  }
};

}  // namespace

ScanVariant reduce_then_scan_variant() {
  return {
      {.family = "scan",
       .name = "reduce_then_scan",
       .description = "tile totals first (read only), one block scans them, then each tile from its offset",
       .technique = "reduce then scan: 3n words of traffic for scan-then-propagate's 4n",
       .smem = SmemKind::static_alloc,
       .model = models::reduce_then_scan},
      both_types<ReduceThenScan>()};
}

}  // namespace smemlab::scan::detail
