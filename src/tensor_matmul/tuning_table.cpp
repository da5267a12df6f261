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
      KernelRate{"mma128x256", 1706.5, 714.6, 450.0, 0.252},
      KernelRate{"mma128x128", 1476.0, 618.1, 300.0, 0.433},
      KernelRate{"mma64x64", 1340.0, 618.1, 400.0, 0.907},
      KernelRate{"inplace128x128", 400.0, 246.6, 2000.0, 1.000},
      KernelRate{"inplace64x64", 271.7, 235.0, 400.0, 1.000},
      KernelRate{"wgmma128x256", 3358.4, 1706.5, 150.0, 0.562},
      KernelRate{"wgmma128x128", 3199.8, 1625.9, 350.0, 0.750},
      KernelRate{"wgmma64x128", 2637.1, 1549.2, 200.0, 0.891},
      KernelRate{"wgmma64x64", 1476.0, 680.9, 250.0, 0.927},
      KernelRate{"clusters128x256", 3199.8, 1706.5, 250.0, 0.551},
      KernelRate{"skinny16x128", 1104.3, 509.4, 350.0, 1.000},
      KernelRate{"skinny128x16", 346.0, 175.8, 400.0, 0.787},
      KernelRate{"swapped256x128", 0.0, 1706.5, 0.0, 0.560},
      KernelRate{"swapped128x128", 0.0, 1406.4, 0.0, 0.712},
      KernelRate{"swapped128x64", 0.0, 1002.5, 600.0, 0.910},
      KernelRate{"smallk32x256", 77.3, 85.1, 0.0, 0.048},
  };
  // clang-format on
  static constexpr std::array devices{TensorTuning{9, 0, 132, 6000.0, 3199.5, 14000.0, 20000.0, measured}};
  return devices;
}

}  // namespace smemlab::tensor_matmul
