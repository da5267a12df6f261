#pragma once
// Device building blocks of the histogram steps: the bin of a sample, a grid's walk over the
// samples with 16-byte loads, and the global-atomic and privatized kernels with their launches.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/per_device.hpp"
#include "histogram/binning.hpp"
#include "histogram/drivers.hpp"

namespace smemlab::histogram::detail {

constexpr unsigned kFullWarp = 0xFFFFFFFFU;

// The bin of a sample, or -1 for a dropped one: a byte is its own bin.
__device__ __forceinline__ int bin_of_sample(std::uint8_t x, const EvenBins& /*bins*/) { return x; }
__device__ __forceinline__ int bin_of_sample(float x, const EvenBins& bins) { return even_bin(x, bins); }

// f(sample) for this thread's share of samples[0, n), the grid striding over them: the samples
// before the first 16-byte boundary one a thread, then 16 bytes a load, then the rest.
template <class T, class F>
__device__ __forceinline__ void for_each_sample(const T* __restrict__ samples, std::size_t n, F&& f) {
  constexpr int kPerVector = 16 / sizeof(T);
  const std::size_t thread = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t{gridDim.x} * blockDim.x;
  const auto address = reinterpret_cast<std::uintptr_t>(samples);
  std::size_t head = (16 - address % 16) % 16 / sizeof(T);
  if (head > n) head = n;
  if (thread < head) f(samples[thread]);
  const std::size_t vectors = (n - head) / kPerVector;
  const auto* v = reinterpret_cast<const uint4*>(samples + head);
  for (std::size_t i = thread; i < vectors; i += threads) {
    const uint4 q = v[i];
    const unsigned words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      if constexpr (std::is_same_v<T, float>) {
        f(__uint_as_float(words[w]));
      } else {
#pragma unroll
        for (int b = 0; b < 4; ++b) f(static_cast<std::uint8_t>(words[w] >> (8 * b)));
      }
    }
  }
  for (std::size_t i = head + vectors * kPerVector + thread; i < n; i += threads) f(samples[i]);
}

// Adds a thread's count of dropped samples to *dropped: one atomic a warp that dropped any.
__device__ __forceinline__ void add_dropped(unsigned mine, std::uint32_t* dropped) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(kFullWarp, mine, offset);
  if (threadIdx.x % 32 == 0 && mine != 0 && dropped != nullptr) atomicAdd(dropped, mine);
}

constexpr int kThreads = 256;

// One atomicAdd on the counts in global memory a sample (step 01, and the fallback of the
// shared-memory steps where one copy of the bins does not fit in a block).
template <class T>
__global__ void __launch_bounds__(kThreads)
    global_atomics_kernel(const T* __restrict__ samples, std::size_t n, EvenBins bins, std::uint32_t* counts,
                          std::uint32_t* dropped) {
  unsigned mine = 0;
  for_each_sample(samples, n, [&](T x) {
    const int b = bin_of_sample(x, bins);
    if (b >= 0) {
      atomicAdd(counts + b, 1U);
    } else {
      ++mine;
    }
  });
  add_dropped(mine, dropped);
}

// The counts cleared, then the kernel.
template <class T>
void launch_global_atomics(const Args<T>& a, cudaStream_t stream) {
  clear_counts(a, stream);
  if (a.n == 0) return;
  global_atomics_kernel<T>
      <<<streaming_grid(global_atomics_kernel<T>, a.n * sizeof(T), kThreads), kThreads, 0, stream>>>(
          a.samples, a.n, bins_of(a), a.counts, a.dropped);
  SMEMLAB_LAUNCH_CHECK();
}

// A block's own histogram, `copies` copies of the bins in shared memory (a warp adds into copy
// warp % copies), added into the global counts at the end: one atomic a bin and block instead
// of one a sample (steps 02 and 03). Runs: a thread counts consecutive samples of one bin in a
// register and adds the run with one atomic when the bin changes (step 03).
template <class T, bool Runs>
__global__ void __launch_bounds__(kThreads)
    privatized_kernel(const T* __restrict__ samples, std::size_t n, EvenBins bins, int copies,
                      std::uint32_t* counts, std::uint32_t* dropped) {
  extern __shared__ std::uint32_t shared_counts[];
  for (int i = threadIdx.x; i < copies * bins.bins; i += kThreads) shared_counts[i] = 0;
  __syncthreads();
  std::uint32_t* const copy = shared_counts + static_cast<int>(threadIdx.x / 32) % copies * bins.bins;
  unsigned mine = 0;
  int run_bin = -1;
  unsigned run_length = 0;
  for_each_sample(samples, n, [&](T x) {
    const int b = bin_of_sample(x, bins);
    if (b < 0) {
      ++mine;
    } else if constexpr (Runs) {
      if (b != run_bin) {
        if (run_length != 0) atomicAdd(copy + run_bin, run_length);
        run_bin = b;
        run_length = 0;
      }
      ++run_length;
    } else {
      atomicAdd(copy + b, 1U);
    }
  });
  if (Runs && run_length != 0) atomicAdd(copy + run_bin, run_length);
  __syncthreads();
  for (int b = threadIdx.x; b < bins.bins; b += kThreads) {
    std::uint32_t sum = 0;
    for (int c = 0; c < copies; ++c) sum += shared_counts[c * bins.bins + b];
    if (sum != 0) atomicAdd(counts + b, sum);
  }
  add_dropped(mine, dropped);
}

// The privatized kernel with `copies` copies where they fit in a block's shared memory;
// global atomics where not even one does.
template <bool Runs, class T>
void launch_privatized(const Args<T>& a, int copies, cudaStream_t stream) {
  const std::size_t copy_bytes = static_cast<std::size_t>(bin_count(a)) * sizeof(std::uint32_t);
  const std::size_t limit = shared_memory_optin();
  if (copy_bytes > limit) return launch_global_atomics(a, stream);
  copies = std::max(1, std::min<int>(copies, static_cast<int>(limit / copy_bytes)));
  clear_counts(a, stream);
  if (a.n == 0) return;
  const auto kernel = privatized_kernel<T, Runs>;
  smemlab::detail::allow_dynamic_smem(kernel, limit);
  const std::size_t smem = copy_bytes * copies;
  kernel<<<streaming_grid(kernel, a.n * sizeof(T), kThreads, smem), kThreads, smem, stream>>>(
      a.samples, a.n, bins_of(a), copies, a.counts, a.dropped);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace smemlab::histogram::detail
