// 09 — first add during the global load. Changed from 08: each block covers 2 x 256 elements and
// every thread adds its two before storing to shared memory. Should buy: half the blocks, half
// the shared-memory tree work per element, and two loads in flight per thread: up to 2x.
#include "reduce/drivers.hpp"
#include "reduce/models.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;

template <class T>
__global__ void __launch_bounds__(kThreads)
    first_add_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  __shared__ T sdata[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kPerBlock + tid;
  const T a = i < n ? in[i] : T(0);
  const T b = i + kThreads < n ? in[i + kThreads] : T(0);
  sdata[tid] = a + b;
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s /= 2) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) partials[blockIdx.x] = sdata[0];
}

template <class T>
void pass(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t stream) {
  first_add_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

ReduceVariant first_add_variant() {
  return {{.family = "reduction",
           .name = "first_add_on_load",
           .description = "two elements per thread, added during the load",
           .technique = "more work per thread: half the blocks, two loads in flight",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::classic_tree(s, t, models::Tree::first_add); }},
          {.f32 = multi_pass_ops<float, kPerBlock, pass<float>>(),
           .f64 = multi_pass_ops<double, kPerBlock, pass<double>>()}};
}

}  // namespace smemlab::reduce::detail
