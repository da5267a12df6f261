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

// Loads a thread issues before it bins any of their samples: one load at a time, the SM holds
// too few bytes in flight to cover DRAM's latency once the bins' shared memory limits the threads
// it can keep (64 KiB of bins: 3 blocks of 256).
constexpr int kLoadsInFlight = 4;

// f(sample) for each sample of a 16-byte vector, in memory order.
template <class T, class F>
__device__ __forceinline__ void bin_vector(const uint4& q, F& f) {
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

// f(sample) for this thread's share of samples[0, n), the grid striding over them: the samples
// before the first 16-byte boundary one a thread, then 16 bytes a load (kLoadsInFlight at a time,
// then one at a time), then the rest.
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
  std::size_t i = thread;
  for (; i + (kLoadsInFlight - 1) * threads < vectors; i += kLoadsInFlight * threads) {
    uint4 q[kLoadsInFlight];
#pragma unroll
    for (int j = 0; j < kLoadsInFlight; ++j) q[j] = v[i + j * threads];
#pragma unroll
    for (int j = 0; j < kLoadsInFlight; ++j) bin_vector<T>(q[j], f);
  }
  for (; i < vectors; i += threads) bin_vector<T>(v[i], f);
  for (std::size_t k = head + vectors * kPerVector + thread; k < n; k += threads) f(samples[k]);
}

// Adds a thread's count of dropped samples to *dropped: one atomic a warp that dropped any.
__device__ __forceinline__ void add_dropped(unsigned mine, std::uint32_t* dropped) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(kFullWarp, mine, offset);
  if (threadIdx.x % 32 == 0 && mine != 0 && dropped != nullptr) atomicAdd(dropped, mine);
}

constexpr int kThreads = 256;
// At most one copy of the bins a lane: the sum's rotation by lane group assumes it.
constexpr int kMostCopiesLog2 = 5;

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

// A block's own histogram in shared memory, added into the global counts at the end: one atomic
// a bin and block instead of one a sample (steps 02 and 03). The block keeps 2^copies_log2
// copies of the bins, interleaved: copy c of bin b is word b * copies + c, and lane l adds into
// copy l % copies (02: one copy; 03: up to 32, one a lane, so lane l's words all sit in bank l).
template <class T>
__global__ void __launch_bounds__(kThreads)
    privatized_kernel(const T* __restrict__ samples, std::size_t n, EvenBins bins, int copies_log2,
                      std::uint32_t* counts, std::uint32_t* dropped) {
  extern __shared__ std::uint32_t shared_counts[];
  const int copies = 1 << copies_log2;
  for (int i = threadIdx.x; i < bins.bins * copies; i += kThreads) shared_counts[i] = 0;
  __syncthreads();
  const int my_copy = static_cast<int>(threadIdx.x) & (copies - 1);
  unsigned mine = 0;
  for_each_sample(samples, n, [&](T x) {
    const int b = bin_of_sample(x, bins);
    if (b >= 0) {
      atomicAdd(shared_counts + ((b << copies_log2) | my_copy), 1U);
    } else {
      ++mine;
    }
  });
  __syncthreads();
  // A warp's 32 bins form `copies` groups of 32 / copies consecutive bins, whose words on one copy
  // fall in 32 / copies banks; the thread summing bin b starts at copy (b / (32 / copies)) %
  // copies, one copy a group, so that each read of the warp falls in 32 different banks.
  const int first_copy_shift = kMostCopiesLog2 - copies_log2;
  for (int b = threadIdx.x; b < bins.bins; b += kThreads) {
    std::uint32_t sum = 0;
    const int first_copy = b >> first_copy_shift;
    for (int c = 0; c < copies; ++c)
      sum += shared_counts[(b << copies_log2) | ((c + first_copy) & (copies - 1))];
    if (sum != 0) atomicAdd(counts + b, sum);
  }
  add_dropped(mine, dropped);
}

// The privatized kernel with copies_log2 as asked (at most 5: a copy a lane) where they fit in a
// block's shared memory, as many as fit where not all do, and global atomics where not even one
// does.
template <class T>
void launch_privatized(const Args<T>& a, int copies_log2, cudaStream_t stream) {
  const std::size_t copy_bytes = static_cast<std::size_t>(bin_count(a)) * sizeof(std::uint32_t);
  const std::size_t limit = shared_memory_optin();
  if (copy_bytes > limit) return launch_global_atomics(a, stream);
  copies_log2 = std::min(copies_log2, kMostCopiesLog2);
  while (copies_log2 > 0 && (copy_bytes << copies_log2) > limit) --copies_log2;
  clear_counts(a, stream);
  if (a.n == 0) return;
  const auto kernel = privatized_kernel<T>;
  smemlab::detail::allow_dynamic_smem(kernel, limit);
  const std::size_t smem = copy_bytes << copies_log2;
  kernel<<<streaming_grid(kernel, a.n * sizeof(T), kThreads, smem), kThreads, smem, stream>>>(
      a.samples, a.n, bins_of(a), copies_log2, a.counts, a.dropped);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace smemlab::histogram::detail
