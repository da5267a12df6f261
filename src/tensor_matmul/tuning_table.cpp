// The chooser's measured rates, per device (tuning.hpp): each kernel's multiply-adds per
// nanosecond per SM with every slot busy, for 2-byte inputs and tf32, the fixed time of a work
// item and the fraction of the DRAM's speed it reads at where memory-bound; and the costs
// around the kernels. Written by scripts/tune_tensor.py from
// docs/results/data/tensor-tuning-h100.json, the fit of a tensor-matmul-tiles sweep on
// an NVIDIA H100 80GB HBM3; a cpu test checks that the two agree. To tune another device, run
// scripts/tune-tensor.sh there and add its rows.
#include <array>

#include "tensor_matmul/tuning.hpp"

namespace smemlab::tensor_matmul {

std::span<const TensorTuning> tensor_tunings() {
  // clang-format off
  static constexpr std::array measured{
      KernelRate{"mma128x256", 1706.5, 714.6, 550.0, 0.254},
      KernelRate{"mma128x128", 1406.4, 618.1, 50.0, 0.436},
      KernelRate{"mma64x64", 1406.4, 648.7, 400.0, 0.920},
      KernelRate{"inplace128x128", 419.8, 246.6, 2000.0, 1.000},
      KernelRate{"inplace64x64", 363.1, 246.6, 200.0, 1.000},
      KernelRate{"wgmma128x256", 3358.4, 1625.9, 300.0, 0.564},
      KernelRate{"wgmma128x128", 3199.8, 1791.0, 400.0, 0.739},
      KernelRate{"wgmma64x128", 2767.7, 1625.9, 250.0, 0.860},
      KernelRate{"clusters128x256", 3199.8, 1706.5, 550.0, 0.557},
      KernelRate{"skinny16x128", 1104.3, 534.6, 450.0, 1.000},
      KernelRate{"skinny128x16", 346.0, 184.5, 400.0, 0.804},
      KernelRate{"swapped256x128", 0.0, 1625.9, 0.0, 0.563},
      KernelRate{"swapped128x128", 0.0, 1476.0, 0.0, 0.707},
      KernelRate{"swapped128x64", 0.0, 1052.2, 700.0, 0.912},
      KernelRate{"smallk32x256", 98.4, 103.3, 0.0, 0.051},
  };
  // clang-format on
  static constexpr std::array devices{TensorTuning{9, 0, 132, 6000.0, 3211.7, 14000.0, 5000.0, measured}};
  return devices;
}

}  // namespace smemlab::tensor_matmul
