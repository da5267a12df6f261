#pragma once
// Launch sizing for persistent (grid-stride) kernels: as many blocks as can be resident at once
// on the current device, read from the occupancy calculator, so that no block waits for a second
// wave while the others finish.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <stdexcept>
#include <string>

#include "smemlab/error.hpp"

namespace smemlab::detail {

// An attribute of the current device, read once per device.
template <cudaDeviceAttr Attribute>
int device_attribute() {
  static std::array<std::atomic<int>, 64> cache{};  // the value + 1; 0: not read yet
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  auto& slot = cache.at(static_cast<std::size_t>(device));
  int stored = slot.load(std::memory_order_relaxed);
  if (stored == 0) {
    int value = 0;
    SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&value, Attribute, device));
    stored = value + 1;
    slot.store(stored, std::memory_order_relaxed);
  }
  return stored - 1;
}

// Multiprocessors of the current device.
inline int sm_count() { return device_attribute<cudaDevAttrMultiProcessorCount>(); }

// Whether the current device can launch cooperative grids (all blocks resident at once, so
// that blocks may wait for each other).
inline bool cooperative_launch_supported() { return device_attribute<cudaDevAttrCooperativeLaunch>() != 0; }

// A 1D grid of `blocks` blocks, which gridDim.x limits to 2^31 - 1; beyond that, an
// invalid_argument saying `too_many` (the caller's words for what was too large).
inline unsigned grid_1d(unsigned long long blocks, const char* too_many) {
  if (blocks > 0x7FFFFFFFULL) throw std::invalid_argument(too_many);
  return static_cast<unsigned>(blocks);
}

// Blocks of `threads` threads of `kernel` resident at once on the whole device. Registers and
// shared memory decide it, not the thread count alone. Cached: launches call it in timed code.
int resident_blocks(const void* kernel, int threads, std::size_t dynamic_smem = 0);

template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t dynamic_smem = 0) {
  return resident_blocks(reinterpret_cast<const void*>(kernel), threads, dynamic_smem);
}

}  // namespace smemlab::detail
