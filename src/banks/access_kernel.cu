// The bank microbenchmark: warps load the same shared-memory pattern (lane * stride, 4, 8 or
// 16 bytes) back to back, eight independent loads per iteration, so the shared-memory pipe, not
// latency, sets the pace. The loads are ld.volatile.shared: with plain ld.shared in volatile asm
// ptxas still merged the repeated loads of one address (measured: 3.1 accesses a clock, more
// than the pipe can serve).
#include <array>
#include <string>

#include "smemlab/access_model.hpp"
#include "smemlab/banks.hpp"

namespace smemlab::banks {
namespace {

__host__ __device__ inline unsigned int word_value(unsigned int i) { return i * 2654435761U + 1U; }

template <int W>
__device__ __forceinline__ unsigned int load_sum(unsigned int address) {
  unsigned int a = 0;
  unsigned int b = 0;
  unsigned int c = 0;
  unsigned int d = 0;
  if constexpr (W == 4) {
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(a) : "r"(address));
  } else if constexpr (W == 8) {
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(address));
  } else {
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(address));
  }
  return a + b + c + d;
}

template <int W>
__global__ void access_kernel(int stride, int iterations, unsigned int* out) {
  extern __shared__ __align__(16) unsigned int words[];
  const int count = kWarp * stride * (W / 4);
  for (int i = static_cast<int>(threadIdx.x); i < count; i += static_cast<int>(blockDim.x))
    words[i] = word_value(static_cast<unsigned int>(i));
  __syncthreads();
  const unsigned int lane = threadIdx.x % kWarp;
  const auto address = static_cast<unsigned int>(__cvta_generic_to_shared(words)) + lane * stride * W;
  unsigned int sum = 0;
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int u = 0; u < kAccessUnroll; ++u) sum += load_sum<W>(address);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int W>
void launch(int stride, int iterations, int blocks, int threads, unsigned int* out, cudaStream_t stream) {
  const std::size_t smem = access_kernel_smem(W, stride);
  SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(access_kernel<W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem)));
  access_kernel<W><<<blocks, threads, smem, stream>>>(stride, iterations, out);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

std::size_t access_kernel_smem(int width, int stride) {
  return static_cast<std::size_t>(kWarp) * stride * width;
}

void launch_access_kernel(int width, int stride, int iterations, int blocks, int threads,
                          unsigned int* out, cudaStream_t stream) {
  switch (width) {
    case 4: return launch<4>(stride, iterations, blocks, threads, out, stream);
    case 8: return launch<8>(stride, iterations, blocks, threads, out, stream);
    case 16: return launch<16>(stride, iterations, blocks, threads, out, stream);
    default: throw UsageError("bank microbenchmark: width " + std::to_string(width) + " (4, 8 or 16)");
  }
}

unsigned int expected_access_sum(int width, int stride, int lane, int iterations) {
  unsigned int one = 0;
  const auto first = static_cast<unsigned int>(lane * stride * (width / 4));
  for (unsigned int k = 0; k < static_cast<unsigned int>(width / 4); ++k) one += word_value(first + k);
  return one * static_cast<unsigned int>(iterations * kAccessUnroll);
}

namespace {

// Per block: the threads fill the array, 4 bytes each in rounds of 256; then each warp loads
// element lane * stride 4096 times.
AccessModel access_model(std::int64_t stride, int width) {
  AccessModel m;
  m.kernel = "access_kernel<" + std::to_string(width) + ">(";
  m.block = {256, 1, 1};
  m.smem_bytes = static_cast<std::size_t>(32 * stride * width);
  m.dynamic_smem = true;
  m.blocks = 1;
  const auto words = static_cast<int>(m.smem_bytes / 4);
  if (words >= 256) m.accesses.push_back(counted_access("fill the array", "st", "tx", m.block, 4, words / 256));
  if (words % 256 > 0)
    m.accesses.push_back(counted_access("fill the array, last round", "st", "tx", {words % 256, 1, 1}, 4, 1));
  m.accesses.push_back(counted_access("repeated load of element lane*stride", "ld",
                                      "tx%32*" + std::to_string(stride), m.block, width, 4096));
  m.traffic = "none: shared memory only";
  m.notes = "Counted per block; the benchmark runs 4 blocks per SM.";
  return m;
}

}  // namespace

std::span<const AccessVariant> access_variants() {
  static const std::array table{
      AccessVariant{{.family = "banks",
                     .name = "ideal",
                     .description = "4-byte loads at stride 1: one wavefront a warp, the reference",
                     .technique = "conflict-free: 32 lanes, 32 banks, one wavefront",
                     .smem = SmemKind::dynamic_alloc,
                     .reference = true,
                     .model = [](const Shape&, DType) { return access_model(1, 4); }},
                    4, true},
      AccessVariant{{.family = "banks",
                     .name = "u32",
                     .description = "4-byte loads of element lane*stride",
                     .technique = "n-way conflicts: lanes whose words share a bank are served in turn",
                     .smem = SmemKind::dynamic_alloc,
                     .model = [](const Shape& s, DType) { return access_model(count(s), 4); }},
                    4, false},
      AccessVariant{{.family = "banks",
                     .name = "u64",
                     .description = "8-byte loads of element lane*stride",
                     .technique = "two half-warp phases: at least two wavefronts for 32 lanes",
                     .smem = SmemKind::dynamic_alloc,
                     .model = [](const Shape& s, DType) { return access_model(count(s), 8); }},
                    8, false},
      AccessVariant{{.family = "banks",
                     .name = "u128",
                     .description = "16-byte loads of element lane*stride",
                     .technique = "four quarter-warp phases: at least four wavefronts for 32 lanes",
                     .smem = SmemKind::dynamic_alloc,
                     .model = [](const Shape& s, DType) { return access_model(count(s), 16); }},
                    16, false},
  };
  return table;
}

}  // namespace smemlab::banks
