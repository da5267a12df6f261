#pragma once
// Device-side helpers the benchmark and tests share: random fills and an L2 flush.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "smemlab/device_buffer.hpp"

namespace smemlab {

// Uniform values in [lo, hi) from a counter-based hash of (seed, index): reproducible and
// independent of the launch shape. Never zeros-only, so unwritten outputs cannot hide.
void fill_uniform(float* data, std::size_t count, std::uint64_t seed, float lo, float hi,
                  cudaStream_t stream);
void fill_uniform(double* data, std::size_t count, std::uint64_t seed, double lo, double hi,
                  cudaStream_t stream);
// Integers: lo + (hi - lo) * u rounded toward zero, u uniform in [0, 1).
void fill_uniform(std::int32_t* data, std::size_t count, std::uint64_t seed, double lo, double hi,
                  cudaStream_t stream);
// The same rounded to bf16 or half (round to nearest): the tensor-core inputs.
void fill_uniform(__nv_bfloat16* data, std::size_t count, std::uint64_t seed, float lo, float hi,
                  cudaStream_t stream);
void fill_uniform(__half* data, std::size_t count, std::uint64_t seed, float lo, float hi, cudaStream_t stream);

// Every element set to `value` (cudaMemset only sets bytes).
void fill_value(float* data, std::size_t count, float value, cudaStream_t stream);
void fill_value(double* data, std::size_t count, double value, cudaStream_t stream);
void fill_value(std::int32_t* data, std::size_t count, std::int32_t value, cudaStream_t stream);

// Evicts the benchmark's data from L2 by reading a buffer twice the L2 size. It reads rather
// than writes, so no dirty lines are left to be written back during the timed kernel.
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer<uint4> scratch_;
  DeviceBuffer<unsigned int> sink_;
};

}  // namespace smemlab
