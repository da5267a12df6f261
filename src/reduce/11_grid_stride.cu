// 11 — several elements per thread by a grid-stride loop. Changed from 10: the grid is sized to
// fill the GPU once (2048 threads per SM) and each thread adds n / (grid threads) elements in a
// register before a single block reduction (warp shuffles, one shared word per warp). A second
// launch of one block adds the block sums. Should buy: the tree's cost now amortised over
// hundreds of elements per thread; what is left is how fast the loads stream in.
#include "reduce/drivers.hpp"
#include "reduce/reduce_device.cuh"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    grid_stride_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  const T total = block_sum<kThreads>(grid_stride_partial(in, n));
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

template <class T>
std::size_t workspace(std::size_t n) {
  return resident_grid(grid_stride_kernel<T>, n, kThreads, 1) * sizeof(T);
}

template <class T>
void launch(const T* in, std::size_t n, T* out, void* ws, cudaStream_t stream) {
  if (n == 0) return write_zero(out, stream);
  const unsigned blocks = resident_grid(grid_stride_kernel<T>, n, kThreads, 1);
  T* const partials = static_cast<T*>(ws);
  grid_stride_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
  grid_stride_kernel<<<1, kThreads, 0, stream>>>(partials, blocks, out);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

ReduceVariant grid_stride_variant() {
  return {{.family = "reduction",
           .name = "grid_stride",
           .description = "grid-stride loop, many elements per thread, block sum by shuffles",
           .technique = "amortise the tree: each thread sums in a register first",
           .smem = SmemKind::static_alloc,
           .why_no_model = "uses shared memory only to combine a few per-warp sums; not modelled"},
          {.f32 = {workspace<float>, launch<float>, nullptr},
           .f64 = {workspace<double>, launch<double>, nullptr}}};
}

}  // namespace smemlab::reduce::detail
