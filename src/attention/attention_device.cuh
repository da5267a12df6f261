#pragma once
// Device pieces the attention steps share: the element types, mma.sync on them, the problem as
// the kernels see it (typed pointers, strides, the mask), which batch, head and Q tile a block
// owns, tile copies into shared memory, and the host side of a fused launch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/cp_async.cuh"
#include "smemlab/attention.hpp"
#include "smemlab/error.hpp"

namespace smemlab::attention::detail {

// 1 / ln 2: the kernels take exponentials as exp2, so scores are scaled by scale * log2(e).
inline constexpr float kLog2e = 1.4426950408889634F;

// Two floats rounded to the element type and packed low, high: an mma.sync operand register.
template <class T>
__device__ __forceinline__ std::uint32_t pack2(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  }
}

// Two elements at p[0] and p[stride] packed low, high: a B operand register whose two K values
// lie in different rows (V's keys).
template <class T>
__device__ __forceinline__ std::uint32_t pack_rows(const T* p, int stride) {
  const std::uint16_t lo = *reinterpret_cast<const std::uint16_t*>(p);
  const std::uint16_t hi = *reinterpret_cast<const std::uint16_t*>(p + stride);
  return static_cast<std::uint32_t>(lo) | (static_cast<std::uint32_t>(hi) << 16);
}

// C (16 x 8, float) += A (16 x 16) * B (16 x 8) on the tensor cores. Fragments as PTX defines
// them for m16n8k16: lane l holds rows l / 4 and l / 4 + 8, and K pairs 2 (l % 4) and 2 (l % 4) + 8.
template <class T>
__device__ __forceinline__ void mma16816(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Four 8 x 8 matrices of 2-byte elements from shared memory; lane l gives the address of row
// l % 8 of matrix l / 8. Trans: each matrix arrives transposed (lane l holds column l / 4).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(row));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
// The same from a shared-memory address (a 32-bit offset in the block's shared window).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// 2^x by the SFU's approximation (2 ulp; -infinity gives 0, subnormal results flush to 0).
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// A 32-bit word of shared memory: two adjacent elements of a row.
template <class T>
__device__ __forceinline__ std::uint32_t word(const T* p) {
  return *reinterpret_cast<const std::uint32_t*>(p);
}

// The call as a kernel reads it.
template <class T>
struct Problem {
  const T* q;
  const T* k;
  const T* v;
  T* o;
  float* lse;
  Strides qs, ks, vs, os;
  int batch;
  int heads;  // query heads
  int group;  // query heads per kv head
  int q_len, kv_len;
  int q_tiles;       // Q tiles of a head
  int causal_shift;  // causal: row i sees keys j <= i + shift; otherwise kv_len (every key)
  float scale_log2;  // softmax scale * log2(e)
};

template <class T>
Problem<T> problem_of(const Args& a, int tile_rows) {
  const Shape& s = a.shape;
  return {static_cast<const T*>(a.q),
          static_cast<const T*>(a.k),
          static_cast<const T*>(a.v),
          static_cast<T*>(a.o),
          a.lse,
          a.q_strides,
          a.k_strides,
          a.v_strides,
          a.o_strides,
          s.batch,
          s.q_heads,
          s.q_heads / s.kv_heads,
          s.q_len,
          s.kv_len,
          (s.q_len + tile_rows - 1) / tile_rows,
          s.causal ? s.kv_len - s.q_len : s.kv_len,
          s.scale * kLog2e};
}

// The rows a block owns: Q tile `tile` of head `head` of batch `batch`, from a flat block index
// (the grid's y and z would cap batch x heads at 65,535).
struct BlockRows {
  int batch, head, tile;
};
template <class T>
__device__ __forceinline__ BlockRows block_rows(const Problem<T>& p) {
  const auto flat = static_cast<long long>(blockIdx.x);
  const auto pair = static_cast<int>(flat / p.q_tiles);
  return {pair / p.heads, pair % p.heads, static_cast<int>(flat % p.q_tiles)};
}

// The block's head of Q and the kv head it reads.
template <class T>
struct HeadInputs {
  const T* q;
  const T* k;
  const T* v;
};
template <class T>
__device__ __forceinline__ HeadInputs<T> head_inputs(const Problem<T>& p, const BlockRows& at) {
  const int kv_head = at.head / p.group;
  return {p.q + at.batch * p.qs.batch + at.head * p.qs.head,
          p.k + at.batch * p.ks.batch + kv_head * p.ks.head,
          p.v + at.batch * p.vs.batch + kv_head * p.vs.head};
}

// Copies rows [first, first + Rows) of a [len, D] matrix (row stride `stride` elements) into a
// shared tile of Rows rows, Pitch elements apart, 16 bytes a thread at a time; rows at or past
// `len` become zero.
template <class T, int Rows, int D, int Pitch, int Threads>
__device__ __forceinline__ void load_tile(T* tile, const T* rows, std::int64_t stride, int first, int len) {
  constexpr int kChunks = D * static_cast<int>(sizeof(T)) / 16;  // 16-byte chunks a row
  for (int c = static_cast<int>(threadIdx.x); c < Rows * kChunks; c += Threads) {
    const int r = c / kChunks;
    const int col = (c % kChunks) * (16 / static_cast<int>(sizeof(T)));
    uint4 value = make_uint4(0, 0, 0, 0);
    if (first + r < len) value = *reinterpret_cast<const uint4*>(rows + (first + r) * stride + col);
    *reinterpret_cast<uint4*>(tile + r * Pitch + col) = value;
  }
}

// Byte offset of 16-byte chunk c of row r in a swizzled tile of rows D elements long (D >= 64,
// so a row is at least 128 bytes: eight chunks to permute). The eight rows one ldmatrix phase
// reads then lie in eight different 16-byte bank groups.
template <int D>
__device__ __forceinline__ int swizzled(int r, int c) {
  return r * D * 2 + ((c ^ (r & 7)) << 4);
}

// Rows 0 to Rows - 1 of a swizzled tile by cp.async from the rows row_at(r) points to; a null
// row is zero-filled (the copy reads nothing: its source stays a valid address, `fallback`).
template <int Rows, int D, int Threads, class T, class RowAt>
__device__ __forceinline__ void copy_rows(unsigned char* tile, const T* fallback, RowAt&& row_at) {
  constexpr int kChunks = D * 2 / 16;
  for (int c = static_cast<int>(threadIdx.x); c < Rows * kChunks; c += Threads) {
    const int r = c / kChunks;
    const int chunk = c % kChunks;
    const T* const row = row_at(r);
    smemlab::detail::cp_async16(tile + swizzled<D>(r, chunk), (row != nullptr ? row : fallback) + chunk * 8,
                                row != nullptr ? 16 : 0);
  }
}

// Rows [first, first + Rows) of a [len, D] matrix (row stride `stride` elements) into a swizzled
// tile by cp.async; rows at or past `len` are zero-filled.
template <class T, int Rows, int D, int Threads>
__device__ __forceinline__ void copy_tile(unsigned char* tile, const T* rows, std::int64_t stride, int first,
                                          int len) {
  copy_rows<Rows, D, Threads>(tile, rows, [&](int r) -> const T* {
    return first + r < len ? rows + (first + r) * stride : nullptr;
  });
}

// The log-sum-exp of a row from its running maximum (log2 units of the scaled scores) and sum.
__device__ __forceinline__ float row_lse(float max_log2, float sum) {
  return sum > 0.0F ? (max_log2 + log2f(sum)) * 0.6931471805599453F : -INFINITY;
}

// A warp's 16 query rows of a Q tile, held as mma.sync holds a 16 x 8 accumulator: this lane
// has rows `top` (fragment elements 0 and 1) and `top + 8` (elements 2 and 3), and in each tile
// of 8 keys the pair 2 (lane % 4), 2 (lane % 4) + 1. Keeps the online softmax's running maximum
// (log2 units of the scaled scores) and this lane's share of each row's sum.
template <int Keys, int D>
struct WarpRows {
  int top;  // absolute query row of the fragment's upper half
  int t;    // lane % 4
  float max_top = -INFINITY, max_bottom = -INFINITY;
  float sum_top = 0.0F, sum_bottom = 0.0F;

  // Masks raw scores of keys [key0, key0 + Keys): keys past the end of K or past a row's
  // causal limit become -infinity.
  template <class T>
  __device__ __forceinline__ void mask(float (&s)[Keys / 8][4], const Problem<T>& p, int key0) const {
#pragma unroll
    for (int nt = 0; nt < Keys / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = key0 + 8 * nt + 2 * t + e % 2;
        const int row = e < 2 ? top : top + 8;
        if (key >= p.kv_len || key > row + p.causal_shift) s[nt][e] = -INFINITY;
      }
  }

  // The factors that bring O's rows to new maxima.
  struct Rescale {
    float top, bottom;
  };

  // The online softmax on raw scores s (scaled by `scale_log2`, a positive factor, in the
  // exponent): new row maxima (four lanes share a row), the scores turned into probabilities
  // against them, the sums rescaled; returns the factors for O's rows (rescale()).
  __device__ __forceinline__ Rescale softmax(float (&s)[Keys / 8][4], float scale_log2) {
    float tile_top = -INFINITY, tile_bottom = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < Keys / 8; ++nt) {
      tile_top = fmaxf(tile_top, fmaxf(s[nt][0], s[nt][1]));
      tile_bottom = fmaxf(tile_bottom, fmaxf(s[nt][2], s[nt][3]));
    }
#pragma unroll
    for (int lanes = 1; lanes < 4; lanes *= 2) {
      tile_top = fmaxf(tile_top, __shfl_xor_sync(0xFFFFFFFF, tile_top, lanes));
      tile_bottom = fmaxf(tile_bottom, __shfl_xor_sync(0xFFFFFFFF, tile_bottom, lanes));
    }
    const float new_top = fmaxf(max_top, tile_top * scale_log2);
    const float new_bottom = fmaxf(max_bottom, tile_bottom * scale_log2);
    const float base_top = new_top == -INFINITY ? 0.0F : new_top;  // no key seen yet: every p is 0
    const float base_bottom = new_bottom == -INFINITY ? 0.0F : new_bottom;
    const Rescale r{fast_exp2(max_top - base_top), fast_exp2(max_bottom - base_bottom)};
    max_top = new_top;
    max_bottom = new_bottom;
    sum_top *= r.top;
    sum_bottom *= r.bottom;
#pragma unroll
    for (int nt = 0; nt < Keys / 8; ++nt) {
      s[nt][0] = fast_exp2(fmaf(s[nt][0], scale_log2, -base_top));
      s[nt][1] = fast_exp2(fmaf(s[nt][1], scale_log2, -base_top));
      s[nt][2] = fast_exp2(fmaf(s[nt][2], scale_log2, -base_bottom));
      s[nt][3] = fast_exp2(fmaf(s[nt][3], scale_log2, -base_bottom));
      sum_top += s[nt][0] + s[nt][1];
      sum_bottom += s[nt][2] + s[nt][3];
    }
    return r;
  }

  static __device__ __forceinline__ void rescale(float (&acc)[D / 8][4], Rescale r) {
#pragma unroll
    for (int nt = 0; nt < D / 8; ++nt) {
      acc[nt][0] *= r.top;
      acc[nt][1] *= r.top;
      acc[nt][2] *= r.bottom;
      acc[nt][3] *= r.bottom;
    }
  }

  // softmax(), then O's rows rescaled at once.
  __device__ __forceinline__ void update(float (&s)[Keys / 8][4], float (&acc)[D / 8][4], float scale_log2) {
    rescale(acc, softmax(s, scale_log2));
  }

  // O's rows divided by their sums (a row that saw no key is 0) and stored; the log-sum-exps.
  template <class T>
  __device__ __forceinline__ void store(const Problem<T>& p, const BlockRows& at,
                                        const float (&acc)[D / 8][4]) {
#pragma unroll
    for (int lanes = 1; lanes < 4; lanes *= 2) {
      sum_top += __shfl_xor_sync(0xFFFFFFFF, sum_top, lanes);
      sum_bottom += __shfl_xor_sync(0xFFFFFFFF, sum_bottom, lanes);
    }
    T* const o = p.o + at.batch * p.os.batch + at.head * p.os.head;
    const auto store_row = [&](int row, float sum, float row_max, int e) {
      if (row >= p.q_len) return;
      const float inverse = sum > 0.0F ? 1.0F / sum : 0.0F;
      T* const out = o + row * p.os.seq + 2 * t;
#pragma unroll
      for (int nt = 0; nt < D / 8; ++nt)
        *reinterpret_cast<std::uint32_t*>(out + 8 * nt) =
            pack2<T>(acc[nt][e] * inverse, acc[nt][e + 1] * inverse);
      if (p.lse != nullptr && t == 0)
        p.lse[(static_cast<long long>(at.batch) * p.heads + at.head) * p.q_len + row] = row_lse(row_max, sum);
    };
    store_row(top, sum_top, max_top, 0);
    store_row(top + 8, sum_bottom, max_bottom, 2);
  }
};

// The A operand of P V for keys 16 kk to 16 kk + 15: P's accumulator fragments, rounded to T.
template <class T, int Keys>
__device__ __forceinline__ void p_fragment(std::uint32_t (&a)[4], const float (&s)[Keys / 8][4], int kk) {
  a[0] = pack2<T>(s[2 * kk][0], s[2 * kk][1]);
  a[1] = pack2<T>(s[2 * kk][2], s[2 * kk][3]);
  a[2] = pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]);
  a[3] = pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3]);
}

// The keys a block of query rows [first_row, first_row + rows) needs: up to `end` (past the last
// row's causal limit nothing is seen), and the tiles from `unmasked_end` on need the mask (they
// reach past the first row's limit, or past the end of K).
struct KeyRange {
  int end, unmasked_end;
};
template <class T>
__device__ __forceinline__ KeyRange key_range(const Problem<T>& p, int first_row, int rows) {
  const int last_row = min(first_row + rows, p.q_len) - 1;
  return {min(p.kv_len, max(0, last_row + p.causal_shift + 1)),
          min(p.kv_len, max(0, first_row + p.causal_shift + 1))};
}

// T(E{}) for the call's element type.
template <class F>
void with_element_type(DType type, F&& f) {
  if (type == DType::bf16) {
    f(__nv_bfloat16{});
  } else {
    f(__half{});
  }
}

// f.template operator()<T, D>() for the call's element type T and head dim D (64, 128 or 256, as
// validate() allows): every step instantiates its kernel for each.
template <class F>
void with_type_and_head_dim(const Args& a, F&& f) {
  with_element_type(a.type, [&]<class T>(T) {
    if (a.shape.head_dim == 64) f.template operator()<T, 64>();
    if (a.shape.head_dim == 128) f.template operator()<T, 128>();
    if (a.shape.head_dim == 256) f.template operator()<T, 256>();
  });
}

// The workspace of a step that keeps nothing in global memory but its output.
inline std::size_t no_workspace(const Args& /*args*/) { return 0; }

// Throws std::invalid_argument, before anything is queued, where the device cannot give a block
// `smem` bytes of shared memory; otherwise lets `kernel` take them.
template <class Kernel>
void allow_shared_memory(Kernel kernel, int smem, const Args& a) {
  int device = 0;
  int optin = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (smem > optin)
    throw std::invalid_argument(
        "attention: head dim " + std::to_string(a.shape.head_dim) + " needs " + std::to_string(smem) +
        " bytes of shared memory a block; this device allows " + std::to_string(optin));
  SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
}

// Launches a fused kernel: one block of `threads` a Q tile of `tile_rows` rows, `smem` bytes of
// dynamic shared memory.
template <class T>
void launch_fused(void (*kernel)(Problem<T>), const Args& a, int tile_rows, int threads, int smem,
                  cudaStream_t stream) {
  const Problem<T> p = problem_of<T>(a, tile_rows);
  const long long blocks = static_cast<long long>(a.shape.batch) * a.shape.q_heads * p.q_tiles;
  if (blocks > 0x7FFFFFFF) throw std::invalid_argument("attention: more than 2^31 - 1 Q tiles");
  allow_shared_memory(kernel, smem, a);
  kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(p);
  SMEMLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace smemlab::attention::detail
