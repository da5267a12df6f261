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
      KernelRate{"mma128x256", 1726.9, 729.6, 1589.3},
      KernelRate{"mma128x128", 1435.4, 619.1, 537.3},
      KernelRate{"mma64x64", 1131.0, 551.6, 308.2},
      KernelRate{"wgmma128x256", 3219.4, 1580.0, 0.0},
      KernelRate{"wgmma128x128", 2847.1, 1451.0, 308.7},
      KernelRate{"wgmma64x128", 1425.3, 1150.1, 394.2},
      KernelRate{"clusters128x256", 3371.1, 1644.3, 211.0},
  };
  // clang-format on
  static constexpr std::array devices{TensorTuning{9, 0, 132, 1200.0, 2749.4, 1750.0, measured}};
  return devices;
}

}  // namespace smemlab::tensor_matmul
