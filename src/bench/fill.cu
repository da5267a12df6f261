#include <cstdint>

#include "bench/device_memory.hpp"
#include "smemlab/error.hpp"

namespace smemlab {
namespace {

// splitmix64 finaliser: a good 64-bit mix of (seed, index), so values are independent of
// the launch configuration and identical on every run.
__device__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

unsigned fill_blocks(std::size_t count, int threads) {
  return static_cast<unsigned>(std::min<std::size_t>((count + threads - 1) / threads, 65536));
}

template <class T, class Bound>
__global__ void fill_uniform_kernel(T* data, std::size_t count, std::uint64_t seed, Bound lo, Bound hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const double unit = static_cast<double>(mix(seed * 0x100000001B3ULL ^ i) >> 11) * 0x1.0p-53;
    data[i] = static_cast<T>(static_cast<Bound>(lo + (hi - lo) * unit));
  }
}

template <class T, class Bound>
void launch_fill(T* data, std::size_t count, std::uint64_t seed, Bound lo, Bound hi, cudaStream_t stream) {
  if (count == 0) return;
  fill_uniform_kernel<<<fill_blocks(count, 256), 256, 0, stream>>>(data, count, seed, lo, hi);
  SMEMLAB_LAUNCH_CHECK();
}

template <class T>
__global__ void fill_value_kernel(T* data, std::size_t count, T value) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    data[i] = value;
}

template <class T>
void launch_fill_value(T* data, std::size_t count, T value, cudaStream_t stream) {
  if (count == 0) return;
  fill_value_kernel<<<fill_blocks(count, 256), 256, 0, stream>>>(data, count, value);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

void fill_value(float* data, std::size_t count, float value, cudaStream_t stream) {
  launch_fill_value(data, count, value, stream);
}

void fill_value(double* data, std::size_t count, double value, cudaStream_t stream) {
  launch_fill_value(data, count, value, stream);
}

void fill_value(std::int32_t* data, std::size_t count, std::int32_t value, cudaStream_t stream) {
  launch_fill_value(data, count, value, stream);
}

void fill_uniform(std::int32_t* data, std::size_t count, std::uint64_t seed, double lo, double hi,
                  cudaStream_t stream) {
  launch_fill(data, count, seed, lo, hi, stream);
}

void fill_uniform(float* data, std::size_t count, std::uint64_t seed, float lo, float hi,
                  cudaStream_t stream) {
  launch_fill(data, count, seed, lo, hi, stream);
}

void fill_uniform(double* data, std::size_t count, std::uint64_t seed, double lo, double hi,
                  cudaStream_t stream) {
  launch_fill(data, count, seed, lo, hi, stream);
}

void fill_uniform(__nv_bfloat16* data, std::size_t count, std::uint64_t seed, float lo, float hi,
                  cudaStream_t stream) {
  launch_fill(data, count, seed, lo, hi, stream);
}

void fill_uniform(__half* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
  launch_fill(data, count, seed, lo, hi, stream);
}

}  // namespace smemlab
