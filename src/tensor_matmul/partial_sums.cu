// The partial sums of split-K (partial_sums.hpp): one pass that reads every range's product
// once and writes C once; each thread adds four adjacent columns, with 16-byte accesses where
// the rows allow them.
#include "tensor_matmul/partial_sums.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "smemlab/error.hpp"
#include "tensor_matmul/repack.hpp"

namespace smemlab::tensor_matmul::detail {
namespace {

constexpr int kThreads = 256;
constexpr long long kMaxBlocks = 1 << 16;  // a grid-stride loop covers the rest

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

// Vector: n % 4 == 0, C's rows 16-byte aligned: whole float4s in and out.
template <bool Vector>
__global__ void __launch_bounds__(kThreads)
    sum_partials_kernel(const float* __restrict__ partials, int count, int m, int n, float alpha, float beta,
                        float* c, int ldc) {
  const int quads_per_row = (n + 3) / 4;
  const long long quads = static_cast<long long>(m) * quads_per_row;
  const auto plane = static_cast<std::size_t>(m) * n;
  for (long long q = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; q < quads;
       q += static_cast<long long>(gridDim.x) * kThreads) {
    const int row = static_cast<int>(q / quads_per_row);
    const int col = static_cast<int>(q % quads_per_row) * 4;
    const std::size_t at = static_cast<std::size_t>(row) * n + col;
    float* out = c + static_cast<std::size_t>(row) * ldc + col;
    if constexpr (Vector) {
      float4 sum = *reinterpret_cast<const float4*>(partials + at);
      for (int p = 1; p < count; ++p) {
        const float4 x = *reinterpret_cast<const float4*>(partials + p * plane + at);
        sum = {sum.x + x.x, sum.y + x.y, sum.z + x.z, sum.w + x.w};
      }
      float4 result{alpha * sum.x, alpha * sum.y, alpha * sum.z, alpha * sum.w};
      if (beta != 0.0F) {
        const float4 old = *reinterpret_cast<const float4*>(out);
        result = {result.x + beta * old.x, result.y + beta * old.y, result.z + beta * old.z, result.w + beta * old.w};
      }
      *reinterpret_cast<float4*>(out) = result;
    } else {
      const int width = min(4, n - col);
      for (int j = 0; j < width; ++j) {
        float sum = partials[at + j];
        for (int p = 1; p < count; ++p) sum += partials[p * plane + at + j];
        out[j] = beta == 0.0F ? alpha * sum : alpha * sum + beta * out[j];
      }
    }
  }
}

}  // namespace

KRanges k_ranges(int k, int k_step, int splits) {
  const int steps = (k + k_step - 1) / k_step;
  if (steps < 1) return {1, 0};  // no K: one empty range (validate refuses k < 1 before any launch)
  const int per_range = (steps + std::max(splits, 1) - 1) / std::max(splits, 1);
  return {(steps + per_range - 1) / per_range, per_range};
}

std::size_t partial_sums_bytes(const GemmArgs& args, int count) {
  return count > 1 ? round_up(static_cast<std::size_t>(count) * args.m * args.n * sizeof(float), 256) : 0;
}

PartialSums::PartialSums(const GemmArgs& args, std::size_t bytes, std::size_t offset, cudaStream_t stream)
    : stream_(stream) {
  if (args.workspace != nullptr) {
    char* const at = workspace_start(args) + round_up(offset, 256);
    const auto end = static_cast<std::size_t>(at - static_cast<char*>(args.workspace)) + bytes;
    if (end > args.workspace_size)
      throw std::invalid_argument("gemm: a workspace of " + std::to_string(args.workspace_size) +
                                  " bytes is smaller than the " + std::to_string(end) +
                                  " that the partial sums need");
    data_ = reinterpret_cast<float*>(at);
    return;
  }
  SMEMLAB_CUDA_CHECK(cudaMallocAsync(&owned_, bytes, stream));
  data_ = static_cast<float*>(owned_);
}

PartialSums::~PartialSums() {
  if (owned_ != nullptr) (void)cudaFreeAsync(owned_, stream_);  // nothing to report from a destructor
}

void sum_partials(const float* partials, int count, const GemmArgs& g, cudaStream_t stream) {
  const long long quads = static_cast<long long>(g.m) * ((g.n + 3) / 4);
  const auto blocks = static_cast<unsigned>(std::min((quads + kThreads - 1) / kThreads, kMaxBlocks));
  const bool vector = g.n % 4 == 0 && g.ldc % 4 == 0 && reinterpret_cast<std::uintptr_t>(g.c) % 16 == 0;
  if (vector) {
    sum_partials_kernel<true><<<blocks, kThreads, 0, stream>>>(partials, count, g.m, g.n, g.alpha, g.beta, g.c, g.ldc);
  } else {
    sum_partials_kernel<false><<<blocks, kThreads, 0, stream>>>(partials, count, g.m, g.n, g.alpha, g.beta, g.c, g.ldc);
  }
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace smemlab::tensor_matmul::detail
