#pragma once
// What bench, info and explain need to know about a GPU, read off the device.
#include <cstddef>
#include <string>

#include "core/clusters.hpp"

#include "smemlab/dtype.hpp"

namespace smemlab {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sms = 0;
  int sm_clock_khz = 0;   // peak SM clock
  int mem_clock_khz = 0;  // peak memory clock
  int bus_width_bits = 0;
  std::size_t global_mem_bytes = 0;
  std::size_t smem_per_block = 0;        // without opt-in
  std::size_t smem_per_block_optin = 0;  // after cudaFuncSetAttribute
  std::size_t smem_per_sm = 0;
  std::size_t l2_bytes = 0;
  int fp32_lanes_per_sm = 0;  // from the compute capability
  double fp32_peak_gflops = 0.0;  // 2 flops per FMA lane per clock
  double dram_peak_gbs = 0.0;     // double data rate x bus width x memory clock
  ClusterResidency cluster_blocks{};  // blocks at once, one an SM, in clusters of 1 to 8
};

// Number of visible CUDA devices; 0 when there is no device or no driver (never throws).
[[nodiscard]] int device_count();
// Throws UsageError for an ordinal that does not exist.
[[nodiscard]] DeviceInfo query_device(int ordinal);
// FP32 FMA lanes per SM for a compute capability; 0 when unknown.
[[nodiscard]] int fp32_lanes_per_sm(int cc_major, int cc_minor);
// Tensor-core flops per SM per clock for inputs of this type (bf16, half, tf32) with FP32
// accumulation, dense; 0 when unknown.
[[nodiscard]] int tensor_flops_per_sm_clock(int cc_major, int cc_minor, DType input);

}  // namespace smemlab
