// The autotuned variant's measured speeds, per device: each configuration's multiply-adds per
// nanosecond per SM with every slot busy, and the model's constants. Written by
// scripts/tune_table.py from docs/results/data/matmul-tuning-h200.json (the fit of a matmul-tiles sweep on
// an H200); a cpu test checks that the two agree. To tune another device, run
// scripts/tune-matmul.sh there and add its rows.
#include <array>

#include "smemlab/matmul.hpp"

namespace smemlab::matmul {

std::span<const DeviceTuning> device_tunings() {
  // clang-format off
  static constexpr std::array h200{
      ConfigSpeed{"128x256x8_s3_w32x128_t8x16_zz", 186.5, 162.2},
      ConfigSpeed{"128x256x8_s4_w32x128_t8x16_zz", 186.1, 167.7},
      ConfigSpeed{"256x128x8_s3_w64x64_t16x8", 182.4, 168.4},
      ConfigSpeed{"128x128x8_s3_w32x64_t8x8_zz_b1", 173.4, 165.6},
      ConfigSpeed{"128x128x8_s3_w32x64_t8x8_zz", 167.9, 157.9},
      ConfigSpeed{"64x128x8_s3_w32x64_t8x8", 188.0, 174.2},
      ConfigSpeed{"64x128x8_s3_w32x64_t8x8_zz", 192.4, 182.5},
      ConfigSpeed{"128x64x8_s3_w32x64_t8x8_zz", 161.8, 147.1},
      ConfigSpeed{"64x64x8_s4_w32x32_t8x4", 141.2, 131.7},
      ConfigSpeed{"32x128x8_s4_w32x32_t4x8", 151.9, 123.3},
      ConfigSpeed{"128x32x8_s4_w64x32_t8x8_zz", 150.3, 144.3},
      ConfigSpeed{"64x32x8_s4_w32x32_t4x8", 129.5, 119.3},
      ConfigSpeed{"32x64x8_s4_w32x32_t4x8", 143.9, 115.3},
      ConfigSpeed{"32x32x8_s4_w32x32_t4x8", 125.5, 112.6},
      ConfigSpeed{"256x64x8_s3_w64x64_t16x8", 180.6, 158.3},
  };
  // clang-format on
  static constexpr std::array devices{
      DeviceTuning{9, 0, 132, 1250.0, 7250.0, 50.0, 0.35, 0.95, h200}};
  return devices;
}

}  // namespace smemlab::matmul
