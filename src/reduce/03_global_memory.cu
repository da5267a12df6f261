// 03 — the reduce_global of the tutorial “Shared Memory”: each block of 128 threads halves its 128
// values in place in global memory, log2(128) = 7 rounds with a barrier each, and the host adds the
// block sums. It overwrites what it reduces, so it works on a copy of the input in the workspace,
// padded with zeros to whole blocks. Every round reads and writes global memory (L2 at best): this
// is the baseline that shared memory improves on.
#include "reduce/drivers.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 128;  // the tutorial's block size

template <class T>
__global__ void __launch_bounds__(kThreads) global_memory_kernel(T* data, T* partials) {
  T* x = data + static_cast<std::size_t>(blockIdx.x) * kThreads;
  for (int offset = kThreads / 2; offset > 0; offset /= 2) {
    if (threadIdx.x < offset) x[threadIdx.x] += x[threadIdx.x + offset];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = x[0];
}

template <class T>
std::size_t workspace(std::size_t n) {
  const std::size_t blocks = ceil_div(n, kThreads);
  return (blocks * kThreads + blocks) * sizeof(T);  // padded copy, then one partial per block
}

template <class T>
void launch(const T* in, std::size_t n, T* out, void* ws, cudaStream_t stream) {
  refuse_capture(stream);
  if (n == 0) return write_zero(out, stream);
  const std::size_t blocks = ceil_div(n, kThreads);
  T* const copy = static_cast<T*>(ws);
  T* const partials = copy + blocks * kThreads;
  SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(copy, in, n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  SMEMLAB_CUDA_CHECK(cudaMemsetAsync(copy + n, 0, (blocks * kThreads - n) * sizeof(T), stream));
  global_memory_kernel<<<grid_size(blocks), kThreads, 0, stream>>>(copy, partials);
  SMEMLAB_LAUNCH_CHECK();
  finish_on_host(partials, blocks, out, stream);
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kSharedMemory};

}  // namespace

ReduceVariant global_memory_variant() {
  return {{.family = "reduction",
           .name = "global_memory",
           .description = "in-place halving in global memory, block sums added on the host",
           .technique = "baseline: every round of the tree is a global-memory read and write",
           .tutorials = kTutorials,
           .smem = SmemKind::none,
           .why_no_model = "uses no shared memory"},
          {.f32 = {workspace<float>, launch<float>, nullptr},
           .f64 = {workspace<double>, launch<double>, nullptr}}};
}

}  // namespace smemlab::reduce::detail
