// 00 — unfused, the reference: what a user writes first. S = scale * Q K^T by cuBLAS into a float
// matrix in the workspace, a kernel that turns each row of S into probabilities P (the mask, the
// maximum taken out, the sum, P written in the element type over S's own row) and the row's
// log-sum-exp, then O = P V by cuBLAS. Every score is written as a float, read back twice by the
// softmax (the second time mostly from L2), written as P and read again: 12 to 16 bytes a score
// through global memory, against 2 bytes for each element of Q, K, V and O. Heads go through in
// groups whose scores fit 1 GiB (or one head, where its scores alone are more), so the workspace
// grows with a head's q_len x kv_len, not with the batch or the number of heads. In half, P is
// stored times 2^k (k = floor(log2 kv_len), at most 14) and the second product scales it back by
// alpha = 2^-k, exactly: probabilities near 1 / kv_len would otherwise fall below half's
// smallest normal number (2^-14) at long kv lengths, where its subnormals keep too few digits.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include "attention/attention_device.cuh"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

constexpr std::size_t kScoreBudget = std::size_t{1} << 30;  // bytes of S a group of heads may fill
constexpr int kSoftmaxThreads = 256;
constexpr int kPerThread = 4;  // scores a thread reads per pass of the in-place rewrite

struct Group {
  std::int64_t heads;       // (batch, head) pairs a cuBLAS call covers
  std::size_t score_bytes;  // their S
};

Group group_of(const Args& a) {
  const auto per_head =
      static_cast<std::size_t>(a.shape.q_len) * static_cast<std::size_t>(a.shape.kv_len) * 4;
  const std::int64_t pairs = static_cast<std::int64_t>(a.shape.batch) * a.shape.q_heads;
  const std::int64_t heads = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(kScoreBudget / std::max<std::size_t>(per_head, 1)), 1, pairs);
  return {heads, per_head * static_cast<std::size_t>(heads)};
}

// Five pointer arrays (Q, K, V, S, O) of a group, then its scores.
std::size_t pointer_bytes(const Group& g) {
  return (5 * static_cast<std::size_t>(g.heads) * 8 + 255) / 256 * 256;
}

std::size_t workspace(const Args& a) {
  if (a.shape.kv_len == 0) return 0;
  const Group g = group_of(a);
  return pointer_bytes(g) + g.score_bytes;
}

// The cuBLAS batched calls' operands for pairs [first, first + count): pair i is batch i / heads,
// query head i % heads.
template <class T>
__global__ void fill_pointers(Problem<T> p, std::int64_t first, int count, float* scores, void** pointers) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count) return;
  const std::int64_t pair = first + i;
  const std::int64_t b = pair / p.heads;
  const std::int64_t h = pair % p.heads;
  const std::int64_t kv = h / p.group;
  pointers[i] = const_cast<T*>(p.q) + b * p.qs.batch + h * p.qs.head;
  pointers[count + i] = const_cast<T*>(p.k) + b * p.ks.batch + kv * p.ks.head;
  pointers[2 * count + i] = const_cast<T*>(p.v) + b * p.vs.batch + kv * p.vs.head;
  pointers[3 * count + i] = scores + static_cast<std::int64_t>(i) * p.q_len * p.kv_len;
  pointers[4 * count + i] = p.o + b * p.os.batch + h * p.os.head;
}

// One block a row of S: its maximum and sum in one pass (each thread keeps a running pair), then
// P over the row in place, a chunk at a time. P's element j overlaps S's element j / 2, which
// this chunk or an earlier one has read: each chunk reads all its scores, then waits at a
// barrier before any thread writes.
template <class T>
__global__ void __launch_bounds__(kSoftmaxThreads)
    softmax_rows(Problem<T> p, std::int64_t first, float* scores, float p_scale_log2) {
  const std::int64_t local = blockIdx.x;  // row within the group
  const std::int64_t pair = first + local / p.q_len;
  const int i = static_cast<int>(local % p.q_len);
  float* const row = scores + local * p.kv_len;
  const int seen = min(p.kv_len, max(0, i + p.causal_shift + 1));  // keys 0 .. seen - 1 are visible

  float m = -INFINITY, l = 0.0F;
  for (int j = static_cast<int>(threadIdx.x); j < seen; j += kSoftmaxThreads) {
    const float x = row[j] * kLog2e;
    const float new_m = fmaxf(m, x);
    l = l * exp2f(m - new_m) + exp2f(x - new_m);
    m = new_m;
  }
  __shared__ float maxima[kSoftmaxThreads / 32], sums[kSoftmaxThreads / 32];
  for (int lanes = 16; lanes > 0; lanes /= 2) {
    const float other_m = __shfl_xor_sync(0xFFFFFFFF, m, lanes);
    const float other_l = __shfl_xor_sync(0xFFFFFFFF, l, lanes);
    const float new_m = fmaxf(m, other_m);
    l = new_m == -INFINITY ? 0.0F : l * exp2f(m - new_m) + other_l * exp2f(other_m - new_m);
    m = new_m;
  }
  if (threadIdx.x % 32 == 0) {
    maxima[threadIdx.x / 32] = m;
    sums[threadIdx.x / 32] = l;
  }
  __syncthreads();
  m = -INFINITY;
  l = 0.0F;
  for (int w = 0; w < kSoftmaxThreads / 32; ++w) {
    const float new_m = fmaxf(m, maxima[w]);
    l = new_m == -INFINITY ? 0.0F : l * exp2f(m - new_m) + sums[w] * exp2f(maxima[w] - new_m);
    m = new_m;
  }
  const float inverse = l > 0.0F ? 1.0F / l : 0.0F;
  T* const probabilities = reinterpret_cast<T*>(row);
  for (int j0 = 0; j0 < p.kv_len; j0 += kSoftmaxThreads * kPerThread) {
    float x[kPerThread];
    for (int e = 0; e < kPerThread; ++e) {
      const int j = j0 + e * kSoftmaxThreads + static_cast<int>(threadIdx.x);
      x[e] = j < seen ? exp2f(row[j] * kLog2e - m + p_scale_log2) * inverse : 0.0F;
    }
    __syncthreads();
    for (int e = 0; e < kPerThread; ++e) {
      const int j = j0 + e * kSoftmaxThreads + static_cast<int>(threadIdx.x);
      if (j < p.kv_len) probabilities[j] = static_cast<T>(x[e]);
    }
    __syncthreads();
  }
  if (p.lse != nullptr && threadIdx.x == 0) p.lse[pair * p.q_len + i] = row_lse(m, l);
}

// kv_len = 0: every row sees no key.
template <class T>
__global__ void empty_rows(Problem<T> p, int head_dim) {
  const std::int64_t row = blockIdx.x;  // over batch x heads x q_len
  const std::int64_t pair = row / p.q_len;
  const std::int64_t i = row % p.q_len;
  T* const out = p.o + (pair / p.heads) * p.os.batch + (pair % p.heads) * p.os.head + i * p.os.seq;
  for (int c = static_cast<int>(threadIdx.x); c < head_dim; c += static_cast<int>(blockDim.x))
    out[c] = static_cast<T>(0.0F);
  if (p.lse != nullptr && threadIdx.x == 0) p.lse[row] = -INFINITY;
}

template <class T>
void run_unfused(const Args& a, const LaunchContext& ctx) {
  const Shape& s = a.shape;
  const Problem<T> p = problem_of<T>(a, 1);
  const std::int64_t pairs = static_cast<std::int64_t>(s.batch) * s.q_heads;
  if (s.kv_len == 0) {
    if (pairs * s.q_len > 0x7FFFFFFF) throw std::invalid_argument("attention: more than 2^31 - 1 rows");
    empty_rows<T><<<static_cast<unsigned>(pairs * s.q_len), 128, 0, ctx.stream>>>(p, s.head_dim);
    SMEMLAB_CUDA_CHECK(cudaGetLastError());
    return;
  }
  const Group group = group_of(a);
  const auto pointers = static_cast<void**>(a.workspace);  // cuBLAS takes arrays of non-const pointers
  auto* const scores =
      reinterpret_cast<float*>(static_cast<unsigned char*>(a.workspace) + pointer_bytes(group));
  const cudaDataType_t data = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
  SMEMLAB_CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));
  const float zero = 0.0F;
  const int p_scale_log2 =
      std::is_same_v<T, __half> ? std::min(14, static_cast<int>(std::bit_width(static_cast<unsigned>(s.kv_len))) - 1) : 0;
  const float p_unscale = std::ldexp(1.0F, -p_scale_log2);
  for (std::int64_t first = 0; first < pairs; first += group.heads) {
    const int count = static_cast<int>(std::min(group.heads, pairs - first));
    fill_pointers<T><<<(count + 127) / 128, 128, 0, ctx.stream>>>(p, first, count, scores, pointers);
    SMEMLAB_CUDA_CHECK(cudaGetLastError());
    // Row-major S (q_len x kv_len) is column-major S^T = K Q^T: K's rows as columns, transposed.
    SMEMLAB_CUBLAS_CHECK(cublasGemmBatchedEx(
        ctx.cublas, CUBLAS_OP_T, CUBLAS_OP_N, s.kv_len, s.q_len, s.head_dim, &s.scale, pointers + count, data,
        static_cast<int>(a.k_strides.seq), pointers, data, static_cast<int>(a.q_strides.seq), &zero,
        pointers + 3 * count, CUDA_R_32F, s.kv_len, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    softmax_rows<T><<<static_cast<unsigned>(count * static_cast<std::int64_t>(s.q_len)), kSoftmaxThreads, 0,
                      ctx.stream>>>(p, first, scores, static_cast<float>(p_scale_log2));
    SMEMLAB_CUDA_CHECK(cudaGetLastError());
    // Row-major O = P V is column-major O^T = V^T P^T; P's rows are S's, 2 kv_len elements apart.
    SMEMLAB_CUBLAS_CHECK(cublasGemmBatchedEx(
        ctx.cublas, CUBLAS_OP_N, CUBLAS_OP_N, s.head_dim, s.q_len, s.kv_len, &p_unscale, pointers + 2 * count,
        data, static_cast<int>(a.v_strides.seq), pointers + 3 * count, data, 2 * s.kv_len, &zero,
        pointers + 4 * count, data, static_cast<int>(a.o_strides.seq), count, CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT));
  }
}

void launch(const Args& a, const LaunchContext& ctx) {
  if (ctx.cublas == nullptr)
    throw std::invalid_argument("attention: the unfused variant needs a cuBLAS handle");
  for (const std::int64_t stride : {a.q_strides.seq, a.k_strides.seq, a.v_strides.seq, a.o_strides.seq})
    if (stride > INT_MAX)
      throw std::invalid_argument("attention: the unfused variant needs seq strides below 2^31");
  if (a.shape.kv_len > INT_MAX / 2)
    throw std::invalid_argument("attention: the unfused variant needs kv_len below 2^30");
  with_element_type(a.type, [&]<class T>(T) { run_unfused<T>(a, ctx); });
}

}  // namespace

AttentionVariant unfused_variant() {
  return {{.family = "attention",
           .name = "unfused",
           .description = "S = QK^T by cuBLAS, a softmax kernel, O = PV by cuBLAS: the reference",
           .technique = "what a user writes first: every score goes through global memory",
           .smem = SmemKind::static_alloc,
           .reference = true,
           .why_no_model =
               "its products are cuBLAS's; the softmax keeps only a block's partial sums in shared memory"},
          {workspace, launch}};
}

}  // namespace smemlab::attention::detail
