// 00 — cub::DeviceHistogram::HistogramEven, the reference: what a CUDA programmer calls instead of
// writing a histogram. Bytes as 257 levels over [0, 256); floats as bins + 1 levels over [lower,
// upper). CUB does not count the samples it drops: n minus the sum of the counts, one small
// kernel after. Nor does it clamp: a float just below upper whose (x - lower) * scale rounds to
// the bin count would be counted one bin past the end, where the rule puts it in the last bin;
// for ranges where that can happen, such samples reach CUB as the float before the first of
// them (an iterator over the samples, which costs CUB its vector loads). Its temporary storage
// comes out of the variant's workspace.
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cub/device/device_histogram.cuh>

#include "histogram/histogram_device.cuh"
#include "histogram/variants.hpp"

namespace smemlab::histogram::detail {
namespace {

// *dropped = n - (counts[0] + ... + counts[bins - 1]), modulo 2^32 (exact: n < 2^32).
__global__ void count_dropped_kernel(const std::uint32_t* counts, int bins, std::size_t n,
                                     std::uint32_t* dropped) {
  __shared__ std::uint32_t warp_sums[32];
  std::uint32_t sum = 0;
  for (int b = threadIdx.x; b < bins; b += blockDim.x) sum += counts[b];
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t all = 0;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) all += warp_sums[w];
    *dropped = static_cast<std::uint32_t>(n) - all;
  }
}

// Samples in [first, upper) become the float before `first`, in the last bin by CUB's formula.
struct IntoLastBin {
  float first;
  float upper;
  float last_inside;
  __host__ __device__ float operator()(float x) const { return x >= first && x < upper ? last_inside : x; }
};

// `first`: the first sample CUB would count past the end (first_past_the_end), or upper for none.
template <class Count>
cudaError_t cub_histogram(void* temp, std::size_t& bytes, const Args<float>& a, Count n, cudaStream_t s,
                          float first) {
  if (!(first < a.upper))
    return cub::DeviceHistogram::HistogramEven(temp, bytes, a.samples, a.counts, a.bins + 1, a.lower, a.upper,
                                               n, s);
  const auto samples = thrust::make_transform_iterator(
      a.samples, IntoLastBin{first, a.upper, std::nextafter(first, a.lower)});
  return cub::DeviceHistogram::HistogramEven(temp, bytes, samples, a.counts, a.bins + 1, a.lower, a.upper, n, s);
}

template <class Count>
cudaError_t cub_histogram(void* temp, std::size_t& bytes, const Args<std::uint8_t>& a, Count n, cudaStream_t s,
                          float /*first*/) {
  return cub::DeviceHistogram::HistogramEven(temp, bytes, a.samples, a.counts, 257, 0, 256, n, s);
}

// With num_samples in 32 bits when it fits, as a typical caller passes an int.
template <class T>
cudaError_t cub_call(void* temp, std::size_t& bytes, const Args<T>& a, cudaStream_t s, float first) {
  if (a.n <= static_cast<std::size_t>(INT_MAX))
    return cub_histogram(temp, bytes, a, static_cast<int>(a.n), s, first);
  return cub_histogram(temp, bytes, a, static_cast<std::int64_t>(a.n), s, first);
}

// The larger of the two ways' temporary storage: the range is not known here.
template <class T>
std::size_t cub_workspace(std::size_t n, int bins) {
  Args<T> a;
  a.n = n;
  a.bins = bins;
  std::size_t direct = 0;
  std::size_t clamped = 0;
  SMEMLAB_CUDA_CHECK(cub_call<T>(nullptr, direct, a, nullptr, a.upper));
  SMEMLAB_CUDA_CHECK(cub_call<T>(nullptr, clamped, a, nullptr, a.lower));  // floats: through the iterator
  return std::max(direct, clamped);
}

template <class T>
void cub_run(const Args<T>& a, cudaStream_t stream) {
  if (a.n == 0) return clear_counts(a, stream);
  // The range is known here: the one way this call takes, and its own temporary storage.
  const float first = std::is_same_v<T, float> ? first_past_the_end(bins_of(a)) : a.upper;
  std::size_t bytes = 0;
  SMEMLAB_CUDA_CHECK(cub_call<T>(nullptr, bytes, a, stream, first));
  SMEMLAB_CUDA_CHECK(cub_call<T>(a.workspace, bytes, a, stream, first));
  if (a.dropped != nullptr && !std::is_same_v<T, float>) {
    SMEMLAB_CUDA_CHECK(cudaMemsetAsync(a.dropped, 0, sizeof(std::uint32_t), stream));  // bytes drop none
  } else if (a.dropped != nullptr) {
    count_dropped_kernel<<<1, 1024, 0, stream>>>(a.counts, a.bins, a.n, a.dropped);
    SMEMLAB_LAUNCH_CHECK();
  }
}

}  // namespace

HistogramVariant cub_variant() {
  return {{.family = "histogram",
           .name = "cub",
           .description = "cub::DeviceHistogram::HistogramEven: the reference",
           .technique = "vendor library: what a user would call instead of writing a kernel",
           .smem = SmemKind::static_alloc,
           .reference = true,
           .why_no_model = "a vendor library: its kernels are not modelled"},
          {.u8 = {cub_workspace<std::uint8_t>, cub_run<std::uint8_t>},
           .f32 = {cub_workspace<float>, cub_run<float>}}};
}

}  // namespace smemlab::histogram::detail
