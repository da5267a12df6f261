#pragma once
// Host-side helpers shared by the histogram steps: clearing the counts, the bins of a call, the
// grid of a streaming kernel, and both element types' entry points from one launch template.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/occupancy.hpp"
#include "histogram/binning.hpp"
#include "smemlab/error.hpp"
#include "smemlab/histogram.hpp"

namespace smemlab::histogram::detail {

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Bytes: 256 bins, one per value (the range is not used).
template <class T>
EvenBins bins_of(const Args<T>& a) {
  return even_bins(a.lower, a.upper, std::is_same_v<T, float> ? a.bins : 256);
}

template <class T>
int bin_count(const Args<T>& a) {
  return std::is_same_v<T, float> ? a.bins : 256;
}

// Counts and the dropped counter to zero: the kernels add into them.
template <class T>
void clear_counts(const Args<T>& a, cudaStream_t stream) {
  SMEMLAB_CUDA_CHECK(
      cudaMemsetAsync(a.counts, 0, static_cast<std::size_t>(bin_count(a)) * sizeof(std::uint32_t), stream));
  if (a.dropped != nullptr) SMEMLAB_CUDA_CHECK(cudaMemsetAsync(a.dropped, 0, sizeof(std::uint32_t), stream));
}

// Blocks for a kernel that strides over the samples: as many as can be resident, no more than
// one 16-byte load a thread needs.
template <class Kernel>
unsigned streaming_grid(Kernel kernel, std::size_t bytes, int threads, std::size_t dynamic_smem = 0) {
  const auto resident =
      static_cast<std::size_t>(smemlab::detail::resident_blocks(kernel, threads, dynamic_smem));
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(resident, ceil_div(bytes, 16 * threads))));
}

// The most dynamic shared memory a block may have on the current device.
inline std::size_t shared_memory_optin() {
  return static_cast<std::size_t>(
      smemlab::detail::device_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>());
}

// Copies of the bins the sub-histogram step keeps: up to one a lane (2^5), as many as fit in
// 32 KiB, so that 6 blocks of 256 threads fit an SM (256 bins: 32; 1,024: 8; 16,384: 1).
inline int sub_histogram_copies_log2(int bins) {
  constexpr std::size_t kCopiesBudget = 32 << 10;
  constexpr int kOneALaneLog2 = 5;
  const std::size_t copy_bytes = static_cast<std::size_t>(bins) * sizeof(std::uint32_t);
  int copies_log2 = 0;
  while (copies_log2 < kOneALaneLog2 && (copy_bytes << (copies_log2 + 1)) <= kCopiesBudget) ++copies_log2;
  return copies_log2;
}

// Launch<T>::run(args, stream) for std::uint8_t and float; no workspace.
template <template <class> class Launch>
HistogramOps both_types() {
  return {.u8 = {[](std::size_t, int) { return std::size_t{0}; }, Launch<std::uint8_t>::run},
          .f32 = {[](std::size_t, int) { return std::size_t{0}; }, Launch<float>::run}};
}

}  // namespace smemlab::histogram::detail
