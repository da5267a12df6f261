// 10 — the last warp without barriers, by shuffles. Changed from 09: once 64 values remain, the
// first warp adds the two halves and finishes with __shfl_down_sync, register to register: five
// rounds without shared memory and without __syncthreads (a warp executes together). Should buy:
// 6 of the 8 barrier rounds of the tree, worth most while the tree is a large share of the time.
#include "reduce/drivers.hpp"
#include "reduce/reduce_device.cuh"
#include "reduce/models.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;

template <class T>
__global__ void __launch_bounds__(kThreads)
    warp_shuffle_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  __shared__ T sdata[kThreads];
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kPerBlock + tid;
  const T a = i < n ? in[i] : T(0);
  const T b = i + kThreads < n ? in[i + kThreads] : T(0);
  sdata[tid] = a + b;
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 32; s /= 2) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
    const T v = warp_sum(sdata[tid] + sdata[tid + 32]);
    if (tid == 0) partials[blockIdx.x] = v;
  }
}

template <class T>
void pass(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t stream) {
  warp_shuffle_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

ReduceVariant warp_shuffle_variant() {
  return {{.family = "reduction",
           .name = "warp_shuffle",
           .description = "tree in shared memory down to 64 values, last warp by shuffles",
           .technique = "warp shuffles: the last five rounds need no barrier or shared memory",
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::classic_tree(s, t, models::Tree::warp_shuffle); }},
          {.f32 = multi_pass_ops<float, kPerBlock, pass<float>>(),
           .f64 = multi_pass_ops<double, kPerBlock, pass<double>>()}};
}

}  // namespace smemlab::reduce::detail
