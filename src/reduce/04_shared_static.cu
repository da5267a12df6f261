// 04 — the reduce_shared of the tutorial “Shared Memory”: the block's 128 values are copied once
// into a static __shared__ array and halved there. Changed from 03: the 7 rounds of the tree touch
// on-chip memory instead of global memory, the input is only read (no copy needed), and the data is
// read from DRAM exactly once. The block sums are still added on the host, as in the tutorial.
#include "reduce/drivers.hpp"
#include "reduce/reduce_device.cuh"
#include "reduce/models.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 128;

template <class T>
__global__ void __launch_bounds__(kThreads)
    shared_static_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  __shared__ T s_y[kThreads];
  halve_block_in_shared<kThreads>(in, n, s_y, partials);
}

template <class T>
void pass(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t stream) {
  shared_static_kernel<<<blocks, kThreads, 0, stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kSharedMemory};

}  // namespace

ReduceVariant shared_static_variant() {
  return {{.family = "reduction",
           .name = "shared_static",
           .description = "halving in a static __shared__ array, block sums on the host",
           .technique = "shared memory: the tree runs on chip, the input is read once",
           .tutorials = kTutorials,
           .smem = SmemKind::static_alloc,
           .model = [](const Shape& s, DType t) { return models::tutorial_tree(s, t, false); }},
          {.f32 = host_finish_ops<float, kThreads, pass<float>>(),
           .f64 = host_finish_ops<double, kThreads, pass<double>>()}};
}

}  // namespace smemlab::reduce::detail
