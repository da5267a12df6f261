// The autotuned variant's measured speeds, per device: each configuration's multiply-adds per
// nanosecond per SM with every slot busy, and the model's constants. Written by
// scripts/tune_table.py from docs/results/data/matmul-tuning-h200.json (the fit of a matmul-tiles sweep on
// an H200); a cpu test checks that the two agree. To tune another device, run
// scripts/tune-matmul.sh there and add its rows.
#include <array>

#include "matmul/tuning.hpp"

namespace smemlab::matmul {

std::span<const DeviceTuning> device_tunings() {
  // clang-format off
  static constexpr std::array h200{
      ConfigSpeed{"128x256x8_s3_w32x128_t8x16_zz", 186.4, 162.7, 175.4},
      ConfigSpeed{"128x256x8_s4_w32x128_t8x16_zz", 186.0, 159.8, 184.0},
      ConfigSpeed{"256x128x8_s3_w64x64_t16x8", 182.3, 167.3, 170.4},
      ConfigSpeed{"128x128x8_s3_w32x64_t8x8_zz_b1", 173.2, 165.2, 171.2},
      ConfigSpeed{"128x128x8_s3_w32x64_t8x8_zz", 167.8, 146.1, 170.2},
      ConfigSpeed{"64x128x8_s3_w32x64_t8x8", 187.9, 171.3, 187.4},
      ConfigSpeed{"64x128x8_s3_w32x64_t8x8_zz", 192.2, 181.3, 193.2},
      ConfigSpeed{"128x64x8_s3_w32x64_t8x8_zz", 161.6, 148.7, 161.8},
      ConfigSpeed{"64x64x8_s4_w32x32_t8x4", 141.1, 131.7, 141.1},
      ConfigSpeed{"32x128x8_s4_w32x32_t4x8", 151.7, 123.6, 150.8},
      ConfigSpeed{"128x32x8_s4_w64x32_t8x8_zz", 150.2, 142.5, 145.6},
      ConfigSpeed{"64x32x8_s4_w32x32_t4x8", 129.3, 119.1, 125.7},
      ConfigSpeed{"32x64x8_s4_w32x32_t4x8", 143.8, 114.5, 138.1},
      ConfigSpeed{"32x32x8_s4_w32x32_t4x8", 125.3, 113.2, 121.6},
      ConfigSpeed{"256x64x8_s3_w64x64_t16x8", 180.5, 145.0, 153.6},
  };
  // clang-format on
  static constexpr std::array devices{
      DeviceTuning{9, 0, 132, 2000.0, 6250.0, 45.0, 0.35, 0.925,
                   3400.0, h200}};
  return devices;
}

}  // namespace smemlab::matmul
