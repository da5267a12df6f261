// 19 — dot products on the CUDA cores, K split across a block's threads. Changed from the
// tiles: where C has few outputs (a few rows by a few columns, or a vector against a matrix
// over a long K) every tile above is mostly padding, and its K-loop is a chain of K-steps, each
// a round trip to memory that nothing else hides. Here a block owns a 4 x 4 patch of C and
// splits K across its threads (32 to 1024, from the plan): each thread loads its elements of the
// patch's 4 rows of A and 4 columns of B where they lie (any alignment, any leading dimension,
// either operand stored transposed; four side by side in one load where they lie on a
// 4-element boundary), four elements of K at a time before it multiplies any, so that a block
// waits for about K / (4 x threads) rounds of loads instead of K / 64 steps. The 16 sums
// are added across each warp by shuffles and across the warps in shared memory, always in the
// same order (the same bits from run to run), and each output is written once. The sums are in
// float, from the inputs as given (tf32 operands are not rounded to tf32).
// Should buy: a small product in one launch and one or two rounds of loads: at 3 x 1 x 156 in
// bf16, 06's in-place 64 x 64 tile takes 8.6 µs against cuBLAS's 4.0 on an H200; about 4.5.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "core/occupancy.hpp"
#include "smemlab/error.hpp"
#include "tensor_matmul/mma_device.cuh"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul {
namespace detail {
namespace {

constexpr int kPatch = 4;  // rows and columns of C a block
constexpr int kUnroll = 4;  // elements of K a thread loads before it multiplies
constexpr int kMostThreads = 1024;
constexpr int kWarps = kMostThreads / 32;

// Four consecutive elements in one load (8 bytes, 16 in tf32), from a 4-element boundary.
template <class E>
__device__ __forceinline__ void load_four(const typename E::Storage* p, float (&out)[kPatch]) {
  if constexpr (kIsTf32<E>) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else {
    const uint2 raw = *reinterpret_cast<const uint2*>(p);
    typename E::Storage e[kPatch];
    static_assert(sizeof(e) == sizeof(raw));
    memcpy(e, &raw, sizeof(raw));
#pragma unroll
    for (int i = 0; i < kPatch; ++i) out[i] = element_as_float<E>(e, i);
  }
}

// The patch's elements at one k; rows and columns past C's edge (Checked) are zero, not read.
// VectorA (A stored transposed) and VectorB (B row-major): runs of four lie side by side on
// 4-element boundaries, and one load takes a run that lies inside C's edge.
template <class E, bool Checked, bool TransposedA, bool TransposedB, bool VectorA, bool VectorB>
__device__ __forceinline__ void load_k(const GemmArgs& g, int row0, int col0, int k, float (&a)[kPatch],
                                       float (&b)[kPatch]) {
  using Storage = typename E::Storage;
  // Rows and columns left from the patch's corner, compared without forming row0 + i.
  if (VectorA && (!Checked || g.m - row0 >= kPatch)) {
    load_four<E>(static_cast<const Storage*>(g.a) + a_offset<true>(g, row0, k), a);
  } else {
#pragma unroll
    for (int i = 0; i < kPatch; ++i)
      a[i] = !Checked || i < g.m - row0 ? element_as_float<E>(g.a, a_offset<TransposedA>(g, row0 + i, k)) : 0.0F;
  }
  if (VectorB && (!Checked || g.n - col0 >= kPatch)) {
    load_four<E>(static_cast<const Storage*>(g.b) + b_offset<false>(g, k, col0), b);
  } else {
#pragma unroll
    for (int i = 0; i < kPatch; ++i)
      b[i] = !Checked || i < g.n - col0 ? element_as_float<E>(g.b, b_offset<TransposedB>(g, k, col0 + i)) : 0.0F;
  }
}

template <class E, bool Checked, bool TransposedA, bool TransposedB, bool VectorA, bool VectorB>
__device__ __forceinline__ void dot_patch(const GemmArgs& g, int row0, int col0,
                                          float (&warp_sums)[kWarps][kPatch * kPatch]) {
  const int threads = static_cast<int>(blockDim.x);
  const int t = static_cast<int>(threadIdx.x);
  float acc[kPatch][kPatch] = {};
  const auto multiply = [&](const float(&a)[kPatch], const float(&b)[kPatch]) {
#pragma unroll
    for (int i = 0; i < kPatch; ++i)
#pragma unroll
      for (int j = 0; j < kPatch; ++j) acc[i][j] += a[i] * b[j];
  };
  // kUnroll elements of K a thread, every load issued before the first multiply: a round of
  // loads a pass; then what is left, fewer than kUnroll, one at a time.
  // k unsigned: the passes step up to 4 x 1024 past K's end, which may lie near the largest int,
  // and stay under 2^32.
  const auto k_end = static_cast<unsigned>(g.k);
  const auto step = static_cast<unsigned>(threads);
  unsigned k = t;
  for (; k + (kUnroll - 1) * step < k_end; k += kUnroll * step) {
    float a[kUnroll][kPatch];
    float b[kUnroll][kPatch];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      load_k<E, Checked, TransposedA, TransposedB, VectorA, VectorB>(g, row0, col0, static_cast<int>(k + u * step),
                                                                     a[u], b[u]);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) multiply(a[u], b[u]);
  }
  for (; k < k_end; k += step) {
    float a[kPatch];
    float b[kPatch];
    load_k<E, Checked, TransposedA, TransposedB, VectorA, VectorB>(g, row0, col0, static_cast<int>(k), a, b);
    multiply(a, b);
  }
  const int lane = t % 32;
  const int warp = t / 32;
#pragma unroll
  for (int i = 0; i < kPatch; ++i)
#pragma unroll
    for (int j = 0; j < kPatch; ++j) {
      float v = acc[i][j];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xFFFFFFFFU, v, offset);
      if (lane == 0) warp_sums[warp][i * kPatch + j] = v;
    }
  __syncthreads();
  if (t < kPatch * kPatch) {
    float sum = 0.0F;
    for (int w = 0; w < threads / 32; ++w) sum += warp_sums[w][t];  // warp order: the same every run
    if (!Checked || (t / kPatch < g.m - row0 && t % kPatch < g.n - col0))
      store_c<false>(g, row0 + t / kPatch, col0 + t % kPatch, sum);
  }
}

// Block b: the patch in row b / column_patches, column b % column_patches.
template <class E, bool TransposedA, bool TransposedB, bool VectorA, bool VectorB>
__global__ void __launch_bounds__(kMostThreads) dot_kernel(GemmArgs g, int column_patches) {
  __shared__ float warp_sums[kWarps][kPatch * kPatch];
  const long long patch = blockIdx.x;
  const int row0 = static_cast<int>(patch / column_patches) * kPatch;
  const int col0 = static_cast<int>(patch % column_patches) * kPatch;
  if (g.m - row0 < kPatch || g.n - col0 < kPatch) {
    dot_patch<E, true, TransposedA, TransposedB, VectorA, VectorB>(g, row0, col0, warp_sums);
  } else {
    dot_patch<E, false, TransposedA, TransposedB, VectorA, VectorB>(g, row0, col0, warp_sums);
  }
}

// Whether an operand's runs of four along M or N may be read four at a time: its base and leading
// dimension on 4-element boundaries.
template <class E>
bool runs_of_four(const void* p, int ld) {
  return reinterpret_cast<std::uintptr_t>(p) % (kPatch * sizeof(typename E::Storage)) == 0 && ld % kPatch == 0;
}

template <class E>
void launch_dot(const GemmArgs& g, cudaStream_t stream, const DotPlan& plan) {
  const int column_patches = static_cast<int>((g.n + (kPatch - 1LL)) / kPatch);
  if (plan.blocks > 0x7FFFFFFFLL) throw std::invalid_argument("gemm: C has more 4 x 4 patches than a grid holds");
  const auto launch = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(plan.blocks), static_cast<unsigned>(plan.threads), 0, stream>>>(g, column_patches);
    SMEMLAB_LAUNCH_CHECK();
  };
  const bool vector_a = g.transpose_a && runs_of_four<E>(g.a, g.lda);
  const bool vector_b = !g.transpose_b && runs_of_four<E>(g.b, g.ldb);
  if (g.transpose_a && g.transpose_b) {
    launch(vector_a ? dot_kernel<E, true, true, true, false> : dot_kernel<E, true, true, false, false>);
  } else if (g.transpose_a) {
    if (vector_a) {
      launch(vector_b ? dot_kernel<E, true, false, true, true> : dot_kernel<E, true, false, true, false>);
    } else {
      launch(vector_b ? dot_kernel<E, true, false, false, true> : dot_kernel<E, true, false, false, false>);
    }
  } else if (g.transpose_b) {
    launch(dot_kernel<E, false, true, false, false>);
  } else {
    launch(vector_b ? dot_kernel<E, false, false, false, true> : dot_kernel<E, false, false, false, false>);
  }
}

}  // namespace

void launch_dot_kernel(const GemmArgs& args, const LaunchContext& ctx) {
  const DotPlan plan = plan_dot(args.m, args.n, args.k, smemlab::detail::sm_count());
  with_input_type(args.input, [&](auto e) { launch_dot<decltype(e)>(args, ctx.stream, plan); });
}

TensorVariant dot_variant() {
  return {{.family = "tensor-matmul",
           .name = "dot",
           .description = "for few outputs: a 4 x 4 patch of C a block, K split across its threads, operands read "
                          "where they lie, the sums added in a fixed order",
           .technique = "one launch and one or two rounds of loads where the tiles would wait for K-steps in turn",
           .smem = SmemKind::static_alloc,
           .dtypes = kTensorInputs,
           .why_no_model = "shared memory holds only each warp's 16 sums, written once and read once: no tile to "
                           "model",
           .reads_transposed = true},
          launch_dot_kernel};
}

}  // namespace detail

DotPlan plan_dot(int m, int n, int k, int sms) {
  DotPlan p;
  const auto patches = [](int extent) { return (extent + (detail::kPatch - 1LL)) / detail::kPatch; };
  p.blocks = patches(m) * patches(n);
  // Enough threads that each loads about kUnroll elements of K (one round of loads), from a warp
  // to a block's most; fewer where the blocks would not all fit on the SMs twice over.
  const long long per_round = std::max(1LL, (k + (detail::kUnroll - 1LL)) / detail::kUnroll);
  p.threads = static_cast<int>(std::clamp(std::bit_ceil(static_cast<unsigned long long>(per_round)), 32ULL,
                                          static_cast<unsigned long long>(detail::kMostThreads)));
  while (p.threads > 128 && p.blocks * p.threads > 2LL * sms * kDotThreadsPerSm) p.threads /= 2;
  const auto per_thread = static_cast<int>((k + (p.threads - 1LL)) / p.threads);
  p.rounds = per_thread / detail::kUnroll + per_thread % detail::kUnroll;  // passes, then one at a time
  return p;
}

}  // namespace smemlab::tensor_matmul
