// The autotuned variant's table: per device and shape class, the tile configuration that was
// fastest (geometric mean of the ratio to cuBLAS over the class's sizes) in a sweep.
// Written from docs/results/data/matmul-tuning-h200.json, the output of
// scripts/tune-matmul.sh on an H200; a cpu test checks that the two agree. To tune another
// device, run the script there and add its rows.
#include <array>

#include "smemlab/matmul.hpp"

namespace smemlab::matmul {

std::span<const TuningEntry> tuning_table() {
  static constexpr std::array table{
      TuningEntry{9, 0, 132, ShapeClass::small, {"64x128x8_s3_w32x64_t8x8", 0, 1}},
      TuningEntry{9, 0, 132, ShapeClass::unaligned, {"64x128x8_s3_w32x64_t8x8_zz", 0, 1}},
      TuningEntry{9, 0, 132, ShapeClass::square, {"128x256x8_s3_w32x128_t8x16_zz", 0, 1}},
      TuningEntry{9, 0, 132, ShapeClass::tall, {"128x256x8_s4_w32x128_t8x16_zz", 0, 1}},
      TuningEntry{9, 0, 132, ShapeClass::wide, {"128x256x8_s3_w32x128_t8x16_zz", 0, 1}},
  };
  return table;
}

}  // namespace smemlab::matmul
