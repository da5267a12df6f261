#pragma once
// What `explain` predicts for the tensor-core steps: their shared-memory accesses at a size and
// input type, from the tile configuration the step's file compiles.
#include <cstddef>
#include <string>
#include <string_view>

#include "smemlab/access_model.hpp"
#include "smemlab/shape.hpp"

namespace smemlab::tensor_matmul::models {

struct TileShape {
  int bm, bn, wm, wn, stages;
  bool swizzled;
  bool double_buffer;
  int min_blocks;
};

// The kernel is named `kernel`<MmaConfig<...>, input type`after_type`>: by default the
// instantiation of mma_gemm_kernel with 16-byte copies.
[[nodiscard]] AccessModel mma_tiles(const Shape& shape, DType input, const TileShape& tiles,
                                    std::string_view kernel = "mma_gemm_kernel", std::string_view after_type = ", 16");

// The Hopper steps' configuration (WgmmaConfig's template arguments).
struct WgmmaTiles {
  int consumers, m_tiles, bn, stages;
  bool specialized, persistent, tma_store;
  int cluster_m;
  std::size_t smem_bytes;
  bool swapped = false;  // the tile is C's transpose's: B's tile read into registers
  int cluster_ranges = 0;  // ClusterRanges: K's ranges at this shape (0: another scheduler)
  // StreamKTiles: persistent, each tile stored once by the block that ends it; the shared
  // tiles' sums go through global memory, not shared.
  bool stream_k = false;
};

// TMA writes their stages and wgmma reads them, both outside the load/store unit: what it does
// in shared memory is the epilogue's writes into the staging buffers (tma_store on), or into
// the ring (ClusterSum, K in more than one range).
[[nodiscard]] AccessModel wgmma_tiles(const Shape& shape, DType input, const WgmmaTiles& tiles);

}  // namespace smemlab::tensor_matmul::models

namespace smemlab::tensor_matmul::detail {

template <class Cfg>
[[nodiscard]] AccessModel wgmma_model(const Shape& shape, DType input) {
  return models::wgmma_tiles(shape, input,
                             {Cfg::kConsumers, Cfg::kMTiles, Cfg::kBN, Cfg::kStages, Cfg::kSpecialized,
                              Cfg::kPersistent, Cfg::kTmaStore, Cfg::kClusterM, Cfg::kSmemBytes, Cfg::kSwapped, 0,
                              Cfg::kStreamK});
}

template <class Cfg>
[[nodiscard]] constexpr models::TileShape model_config() {
  return {Cfg::kBM, Cfg::kBN, Cfg::kWM, Cfg::kWN, Cfg::kStages, Cfg::kLayout == decltype(Cfg::kLayout)::swizzled, Cfg::kDoubleBuffer, Cfg::kMinBlocks};
}

}  // namespace smemlab::tensor_matmul::detail
