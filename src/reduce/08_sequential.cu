// 08 — sequential addressing. Changed from 07: in each round the first half of the active
// threads adds the second half (sdata[t] += sdata[t + s], s halving from 128): consecutive lanes
// touch consecutive words, so no bank conflicts, and active threads stay contiguous.
// Should buy: the conflicts of 07, modest since the tree is a small part of the time; half the
// threads still idle after the load, which 09 addresses.
#include "reduce/drivers.hpp"
#include "reduce/models.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    sequential_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  __shared__ T sdata[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + tid;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s /= 2) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

template <class T>
void pass(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t stream) {
  sequential_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

ReduceVariant sequential_variant() {
  return {{.family = "reduction",
           .name = "sequential",
           .description = "sequential addressing: first half adds second half, conflict-free",
           .technique = "contiguous active threads and consecutive words: no conflicts",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::classic_tree(s, t, models::Tree::sequential); }},
          {.f32 = multi_pass_ops<float, kThreads, pass<float>>(),
           .f64 = multi_pass_ops<double, kThreads, pass<double>>()}};
}

}  // namespace smemlab::reduce::detail
