// 05 — the same kernel with the array in dynamic shared memory (extern __shared__, its size given
// at launch), the second version of the tutorial “Shared Memory”. Changed from 04: nothing but
// where the array's size comes from; the block size is still a compile-time constant, so the loop
// unrolls the same and the speed should be the same.
#include "reduce/drivers.hpp"
#include "reduce/reduce_device.cuh"
#include "reduce/models.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

constexpr int kThreads = 128;

template <class T>
__global__ void __launch_bounds__(kThreads)
    shared_dynamic_kernel(const T* __restrict__ in, std::size_t n, T* partials) {
  extern __shared__ __align__(16) unsigned char smem[];  // one untyped array serves float and double
  T* const s_y = reinterpret_cast<T*>(smem);
  halve_block_in_shared<kThreads>(in, n, s_y, partials);
}

template <class T>
void pass(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t stream) {
  shared_dynamic_kernel<<<blocks, kThreads, kThreads * sizeof(T), stream>>>(in, n, partials);
  SMEMLAB_LAUNCH_CHECK();
}

constexpr const Tutorial* kTutorials[] = {&tutorials::kSharedMemory};

}  // namespace

ReduceVariant shared_dynamic_variant() {
  return {{.family = "reduction",
           .name = "shared_dynamic",
           .description = "the same in extern __shared__ memory sized at launch",
           .technique = "dynamic shared memory: same code, size chosen at launch",
           .tutorials = kTutorials,
           .smem = SmemKind::dynamic_alloc,
           .model = [](const Shape& s, DType t) { return models::tutorial_tree(s, t, true); }},
          {.f32 = host_finish_ops<float, kThreads, pass<float>>(),
           .f64 = host_finish_ops<double, kThreads, pass<double>>()}};
}

}  // namespace smemlab::reduce::detail
