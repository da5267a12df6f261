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
      KernelRate{"mma128x256", 1686.0, 711.2, 500.0, 0.241},
      KernelRate{"mma128x128", 1447.8, 610.7, 0.0, 0.419},
      KernelRate{"mma64x64", 1523.2, 676.0, 1850.0, 0.910},
      KernelRate{"inplace128x128", 473.8, 300.0, 2000.0, 1.000},
      KernelRate{"inplace64x64", 386.7, 300.0, 450.0, 1.000},
      KernelRate{"wgmma128x256", 3432.3, 1602.6, 0.0, 0.546},
      KernelRate{"wgmma128x128", 3611.1, 1773.9, 700.0, 0.726},
      KernelRate{"wgmma64x128", 2801.4, 1602.6, 250.0, 0.865},
      KernelRate{"clusters128x256", 3262.4, 1773.9, 0.0, 0.536},
      KernelRate{"skinny16x128", 1181.7, 524.4, 0.0, 1.000},
      KernelRate{"skinny128x16", 367.6, 300.0, 2000.0, 0.754},
      KernelRate{"swapped256x128", 0.0, 1686.0, 0.0, 0.535},
      KernelRate{"swapped128x128", 0.0, 1523.2, 400.0, 0.685},
      KernelRate{"swapped128x64", 0.0, 1014.7, 500.0, 0.881},
  };
  // clang-format on
  static constexpr std::array devices{TensorTuning{9, 0, 132, 8000.0, 3389.1, 14000.0, 20000.0, measured}};
  return devices;
}

}  // namespace smemlab::tensor_matmul
