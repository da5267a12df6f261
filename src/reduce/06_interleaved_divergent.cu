// 06 — the classic progression starts: interleaved addressing with a divergent branch. 256
// threads load one element each into shared memory; in round s, threads whose index is a
// multiple of 2s add the element s away. Changed from 04/05: the block sums are reduced on the
// GPU by further passes of the same kernel, so nothing waits for the host. What it costs:
// `tid % (2s)` selects scattered threads, so every warp stays active (and divergent) in the
// early rounds while doing half, then a quarter... of the work, and the modulo is slow.
#include "reduce/drivers.hpp"
#include "reduce/models.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    interleaved_divergent_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  __shared__ T sdata[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + tid;
  sdata[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned s = 1; s < kThreads; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

template <class T>
void pass(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t stream) {
  interleaved_divergent_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

ReduceVariant interleaved_divergent_variant() {
  return {{.family = "reduction",
           .name = "interleaved_divergent",
           .description = "interleaved addressing, tid % 2s branch; passes on the GPU",
           .technique = "warp divergence: active threads scattered across every warp",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::classic_tree(s, t, models::Tree::divergent); }},
          {.f32 = multi_pass_ops<float, kThreads, pass<float>>(),
           .f64 = multi_pass_ops<double, kThreads, pass<double>>()}};
}

}  // namespace smemlab::reduce::detail
