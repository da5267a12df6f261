// 07 — interleaved addressing with a strided index. Changed from 06: thread t works on element
// 2*s*t, so the active threads are the first ones and whole warps retire early: no divergence
// within a warp until the last rounds. What it costs: in round s, lane t touches word 2*s*t, so
// lanes 32/(2s) apart land in the same bank: for floats a 2-way conflict at s = 1, 4-way at
// s = 2, 8-way at s = 4; at s = 8 only 16 lanes are active, 8 on each of two banks: 8-way.
#include "reduce/drivers.hpp"
#include "reduce/models.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    interleaved_strided_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  __shared__ T sdata[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + tid;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = 1; s < kThreads; s *= 2) {
    const unsigned index = 2 * s * tid;
    if (index < kThreads) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

template <class T>
void pass(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t stream) {
  interleaved_strided_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

ReduceVariant interleaved_strided_variant() {
  return {{.family = "reduction",
           .name = "interleaved_strided",
           .description = "interleaved addressing, strided index 2*s*tid: no divergence",
           .technique = "bank conflicts: lanes 2s words apart share banks",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::classic_tree(s, t, models::Tree::strided); }},
          {.f32 = multi_pass_ops<float, kThreads, pass<float>>(),
           .f64 = multi_pass_ops<double, kThreads, pass<double>>()}};
}

}  // namespace smemlab::reduce::detail
