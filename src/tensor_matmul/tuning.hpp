#pragma once
// How two tensor-core steps pick their shapes, for `explain` and the tests; not part of the
// installed API: the autotuned step's tile configuration (src/tensor_matmul/06_autotuned.cu)
// and the clusters step's cluster shape (11_clusters.cu).
#include <string_view>

namespace smemlab::tensor_matmul {

// The autotuned variant's choice for a shape on the current device: a tile configuration by
// name and the raster group; `explain` and the tests read it.
struct TileChoice {
  std::string_view config;
  int group = 0;  // raster group in block-rows; 0: row-major block order
};
[[nodiscard]] TileChoice choose_tiles(int m, int n, int k, int sms);

// The clusters step's cluster shape for an m x n output with this many clusters resident: 2
// (clusters of two blocks on vertically adjacent tiles, B's tile multicast to both) where each
// cluster walks at least 5 pairs of tiles, else 1 (single blocks).
[[nodiscard]] int cluster_rows(int m, int n, int resident_clusters);

}  // namespace smemlab::tensor_matmul
