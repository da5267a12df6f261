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
      ConfigSpeed{"128x256x8_s3_w32x128_t8x16_zz", 185.5, 160.7},
      ConfigSpeed{"128x256x8_s4_w32x128_t8x16_zz", 185.1, 166.1},
      ConfigSpeed{"256x128x8_s3_w64x64_t16x8", 181.5, 166.8},
      ConfigSpeed{"128x128x8_s3_w32x64_t8x8_zz_b1", 171.8, 162.7},
      ConfigSpeed{"128x128x8_s3_w32x64_t8x8_zz", 167.1, 168.6},
      ConfigSpeed{"64x128x8_s3_w32x64_t8x8", 186.8, 178.8},
      ConfigSpeed{"64x128x8_s3_w32x64_t8x8_zz", 191.1, 187.2},
      ConfigSpeed{"128x64x8_s3_w32x64_t8x8_zz", 162.2, 150.7},
      ConfigSpeed{"64x64x8_s4_w32x32_t8x4", 142.8, 138.8},
      ConfigSpeed{"32x128x8_s4_w32x32_t4x8", 153.4, 130.1},
      ConfigSpeed{"128x32x8_s4_w64x32_t8x8_zz", 150.2, 151.9},
      ConfigSpeed{"64x32x8_s4_w32x32_t4x8", 129.4, 119.8},
      ConfigSpeed{"32x64x8_s4_w32x32_t4x8", 146.2, 113.8},
      ConfigSpeed{"32x32x8_s4_w32x32_t4x8", 125.6, 113.8},
      ConfigSpeed{"256x64x8_s3_w64x64_t16x8", 179.7, 169.1},
  };
  // clang-format on
  static constexpr std::array devices{DeviceTuning{9, 0, 132, 1000.0, 10.0, 0.4, h200}};
  return devices;
}

}  // namespace smemlab::matmul
