// The second half of split-K: C = sum over slices of alpha * partial (already scaled) +
// beta * C. Memory-bound and small next to the product it finishes.
#include "matmul/tiled_gemm.cuh"

namespace smemlab::matmul::detail {
namespace {

__global__ void sum_k_slices_kernel(GemmArgs g, const float* workspace, int slices) {
  const std::size_t mn = static_cast<std::size_t>(g.m) * g.n;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < mn;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    float sum = 0.0F;
    for (int s = 0; s < slices; ++s) sum += workspace[s * mn + i];
    float* c = g.c + i / g.n * g.ldc + i % g.n;
    *c = g.beta == 0.0F ? sum : sum + g.beta * *c;
  }
}

}  // namespace

void sum_k_slices(const GemmArgs& g, const float* workspace, int slices, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const std::size_t mn = static_cast<std::size_t>(g.m) * g.n;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((mn + kThreads - 1) / kThreads, 4096));
  sum_k_slices_kernel<<<blocks, kThreads, 0, stream>>>(g, workspace, slices);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace smemlab::matmul::detail
