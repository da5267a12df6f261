#pragma once
// One-time state kept per device: a kernel's shared-memory allowance (cudaFuncSetAttribute acts
// on the current device only), a count from the occupancy calculator. Computed by the first
// call that needs it on each device, under a lock, so that threads calling at once compute it
// once and every device gets its own.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <mutex>

#include "smemlab/error.hpp"

namespace smemlab::detail {

template <class T>
class PerDevice {
 public:
  // The current device's value, from compute() the first time; a compute() that throws leaves
  // nothing behind, so the next call tries again.
  template <class Compute>
  const T& get(Compute&& compute) {
    int device = 0;
    SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const std::lock_guard lock(mutex_);
    auto it = values_.find(device);
    if (it == values_.end()) it = values_.emplace(device, compute()).first;
    return it->second;  // std::map never moves an entry, and entries are never erased
  }

 private:
  std::mutex mutex_;
  std::map<int, T> values_;
};

// Raises a kernel's dynamic shared-memory limit to `bytes`, the one size it launches with, on
// the current device, once per kernel and device: before its first launch there, and before
// any occupancy query, which counts with it.
void allow_dynamic_smem(const void* kernel, std::size_t bytes);

template <class Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace smemlab::detail
