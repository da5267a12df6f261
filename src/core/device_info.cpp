#include "core/device_info.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "smemlab/error.hpp"

namespace smemlab {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error for later calls
    return 0;
  }
  return count;
}

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  // From the CUDA programming guide's table of arithmetic throughput per SM.
  switch (cc_major) {
    case 6: return cc_minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return cc_minor == 0 ? 64 : 128;
    case 9:
    case 10:
    case 11:
    case 12: return 128;
    default: return 0;
  }
}

int tensor_flops_per_sm_clock(int cc_major, int cc_minor, DType input) {
  // Dense products with FP32 accumulation, from the data-centre parts' datasheets (peak
  // TFLOP/s over SMs and boost clock): A100 (8.0) 312 for 16-bit inputs, H100 and H200 (9.0)
  // 989. tf32 runs at half the 16-bit rate on both. Other parts: unknown.
  const int sixteen_bit = cc_major == 9 && cc_minor == 0 ? 4096 : cc_major == 8 && cc_minor == 0 ? 2048 : 0;
  return input == DType::tf32 ? sixteen_bit / 2 : sixteen_bit;
}

DeviceInfo query_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw UsageError(fmt::format("--device {} does not exist: {} visible", ordinal,
                                 count_of(count, "CUDA device")));
  cudaDeviceProp prop{};
  SMEMLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  const auto attribute = [ordinal](cudaDeviceAttr attr) {
    int value = 0;
    SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
    return value;
  };
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sms = prop.multiProcessorCount;
  info.sm_clock_khz = attribute(cudaDevAttrClockRate);
  info.mem_clock_khz = attribute(cudaDevAttrMemoryClockRate);
  info.bus_width_bits = prop.memoryBusWidth;
  info.global_mem_bytes = prop.totalGlobalMem;
  info.smem_per_block = prop.sharedMemPerBlock;
  info.smem_per_block_optin = prop.sharedMemPerBlockOptin;
  info.smem_per_sm = prop.sharedMemPerMultiprocessor;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  info.fp32_lanes_per_sm = fp32_lanes_per_sm(prop.major, prop.minor);
  info.fp32_peak_gflops = 2.0 * info.fp32_lanes_per_sm * info.sms * info.sm_clock_khz * 1e-6;
  info.dram_peak_gbs = 2.0 * info.mem_clock_khz * 1e3 * (info.bus_width_bits / 8.0) * 1e-9;
  info.cluster_blocks = cluster_residency(ordinal);
  return info;
}

}  // namespace smemlab
