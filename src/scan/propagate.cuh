#pragma once
// The multi-level scan of steps 01-04: scan each tile, scan the tiles' totals, add them back.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "scan/drivers.hpp"
#include "scan/scan_device.cuh"

namespace smemlab::scan::detail {

// One launch of a tile scan: block b scans elements [b*tile, b*tile+tile) of in[0, n) into out
// and, when `totals` is not null, writes their sum to totals[b].
template <class W>
using TilePass = void (*)(const W* in, W* out, std::size_t n, bool exclusive, W* totals, cudaStream_t stream);

// The totals of every level below the first: n elements need ceil(n/tile) totals, which need
// their own, and so on until one tile holds them.
inline std::size_t levels_workspace_bytes(std::size_t n, std::size_t tile, std::size_t word) {
  std::size_t bytes = 0;
  for (std::size_t count = n; count > tile; count = ceil_div(count, tile))
    bytes += ceil_div(ceil_div(count, tile) * word, 256) * 256;  // each level 256-byte aligned
  return bytes;
}

template <class W>
void add_tile_offsets(W* out, std::size_t n, std::size_t tile, const W* offsets, cudaStream_t stream) {
  add_tile_offsets_kernel<<<grid_size(ceil_div(n, tile) - 1), 256, 0, stream>>>(out, n, tile, offsets);
  SMEMLAB_LAUNCH_CHECK();
}

// Scan then propagate: each tile scanned on its own, its total kept; the totals scanned
// (exclusive, by the same pass, recursively when they fill more than one tile); then every tile
// but the first gets the sum of the tiles before it. Reads n twice and writes n twice.
template <class W>
void scan_then_propagate(const W* in, W* out, std::size_t n, bool exclusive, void* workspace,
                         std::size_t tile, TilePass<W> pass, cudaStream_t stream) {
  if (n == 0) return;
  if (n <= tile) return pass(in, out, n, exclusive, nullptr, stream);
  const std::size_t tiles = ceil_div(n, tile);
  W* const totals = static_cast<W*>(workspace);
  void* const rest = static_cast<unsigned char*>(workspace) + ceil_div(tiles * sizeof(W), 256) * 256;
  pass(in, out, n, exclusive, totals, stream);
  scan_then_propagate<W>(totals, totals, tiles, true, rest, tile, pass, stream);
  add_tile_offsets(out, n, tile, totals, stream);
}

}  // namespace smemlab::scan::detail
