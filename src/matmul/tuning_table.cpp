// The autotuned variant's table: per device and shape class, the configuration that was
// fastest in a sweep. PROVISIONAL until the first sweep.
#include <array>

#include "smemlab/matmul.hpp"

namespace smemlab::matmul {

std::span<const TuningEntry> tuning_table() {
  static constexpr std::array table{
      TuningEntry{9, 0, 132, ShapeClass::small, {"128x128x8_s3_w32x64_t8x8", 0, 4}},
      TuningEntry{9, 0, 132, ShapeClass::square, {"128x128x8_s3_w32x64_t8x8", 8, 1}},
      TuningEntry{9, 0, 132, ShapeClass::tall, {"128x128x8_s3_w32x64_t8x8", 8, 1}},
      TuningEntry{9, 0, 132, ShapeClass::wide, {"128x128x8_s3_w32x64_t8x8", 8, 1}},
  };
  return table;
}

}  // namespace smemlab::matmul
