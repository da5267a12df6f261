#pragma once
// What `explain` predicts for the mma.sync steps: their shared-memory accesses at a size and
// input type, from the tile configuration the step's file compiles.
#include <string>

#include "smemlab/access_model.hpp"
#include "smemlab/shape.hpp"

namespace smemlab::tensor_matmul::models {

struct TileShape {
  int bm, bn, wm, wn, stages;
  bool swizzled;
  bool double_buffer;
};

[[nodiscard]] AccessModel mma_tiles(const Shape& shape, DType input, const TileShape& tiles);

}  // namespace smemlab::tensor_matmul::models

namespace smemlab::tensor_matmul::detail {

template <class Cfg>
[[nodiscard]] constexpr models::TileShape model_config() {
  return {Cfg::kBM, Cfg::kBN, Cfg::kWM, Cfg::kWN, Cfg::kStages, Cfg::kLayout == decltype(Cfg::kLayout)::swizzled, Cfg::kDoubleBuffer};
}

}  // namespace smemlab::tensor_matmul::detail
