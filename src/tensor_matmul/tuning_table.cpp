// The chooser's measured rates, per device (tuning.hpp): each kernel's multiply-adds per
// nanosecond per SM with every slot busy, for 2-byte inputs and tf32, and the fixed time of a
// work item; and the costs around the kernels. Written by scripts/tune_tensor.py from
// docs/results/data/tensor-tuning-h100.json, the fit of a tensor-matmul-tiles sweep on
// an NVIDIA H100 80GB HBM3; a cpu test checks that the two agree. To tune another device, run
// scripts/tune-tensor.sh there and add its rows.
#include <array>

#include "tensor_matmul/tuning.hpp"

namespace smemlab::tensor_matmul {

std::span<const TensorTuning> tensor_tunings() {
  // clang-format off
  static constexpr std::array measured{
      KernelRate{"mma128x256", 1686.0, 711.2, 0.0},
      KernelRate{"mma128x128", 1447.8, 610.7, 0.0},
      KernelRate{"mma64x64", 1773.9, 676.0, 2000.0},
      KernelRate{"inplace128x128", 386.7, 300.0, 2000.0},
      KernelRate{"inplace64x64", 367.6, 300.0, 700.0},
      KernelRate{"wgmma128x256", 3611.1, 1963.5, 0.0},
      KernelRate{"wgmma128x128", 3432.3, 1866.3, 0.0},
      KernelRate{"wgmma64x128", 2801.4, 1686.0, 0.0},
      KernelRate{"clusters128x256", 3611.1, 1963.5, 0.0},
  };
  // clang-format on
  static constexpr std::array devices{TensorTuning{9, 0, 132, 8000.0, 2582.7, 13000.0, 7250.0, measured}};
  return devices;
}

}  // namespace smemlab::tensor_matmul
