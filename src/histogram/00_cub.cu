// 00 — cub::DeviceHistogram::HistogramEven, the reference: what a CUDA programmer calls instead of
// writing a histogram. Bytes as 257 levels over [0, 256); floats as bins + 1 levels over [lower,
// upper). CUB does not count the samples it drops: n minus the sum of the counts, one small
// kernel after. Its temporary storage comes out of the variant's workspace.
#include <climits>
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

template <class Count>
cudaError_t cub_histogram(void* temp, std::size_t& bytes, const Args<std::uint8_t>& a, Count n,
                          cudaStream_t s) {
  return cub::DeviceHistogram::HistogramEven(temp, bytes, a.samples, a.counts, 257, 0, 256, n, s);
}

template <class Count>
cudaError_t cub_histogram(void* temp, std::size_t& bytes, const Args<float>& a, Count n, cudaStream_t s) {
  return cub::DeviceHistogram::HistogramEven(temp, bytes, a.samples, a.counts, a.bins + 1, a.lower, a.upper,
                                             n, s);
}

// With num_samples in 32 bits when it fits, as a typical caller passes an int.
template <class T>
cudaError_t cub_call(void* temp, std::size_t& bytes, const Args<T>& a, cudaStream_t s) {
  if (a.n <= static_cast<std::size_t>(INT_MAX))
    return cub_histogram(temp, bytes, a, static_cast<int>(a.n), s);
  return cub_histogram(temp, bytes, a, static_cast<std::int64_t>(a.n), s);
}

template <class T>
std::size_t cub_workspace(std::size_t n, int bins) {
  Args<T> a;
  a.n = n;
  a.bins = bins;
  std::size_t bytes = 0;
  SMEMLAB_CUDA_CHECK(cub_call<T>(nullptr, bytes, a, nullptr));
  return bytes;
}

template <class T>
void cub_run(const Args<T>& a, cudaStream_t stream) {
  if (a.n == 0) return clear_counts(a, stream);
  std::size_t bytes = cub_workspace<T>(a.n, bin_count(a));
  SMEMLAB_CUDA_CHECK(cub_call<T>(a.workspace, bytes, a, stream));
  if (std::is_same_v<T, float> && a.dropped != nullptr) {
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
