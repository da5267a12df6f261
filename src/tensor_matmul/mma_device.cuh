#pragma once
// Device pieces of the tensor-core GEMMs: the element types, the shared-memory tile layouts
// (padded or XOR-swizzled), the global -> shared copies of a K-step, ldmatrix and mma.sync,
// and the epilogue. Shared tiles are handled in bytes: a K-step of A is BM rows of 128 bytes
// (64 bf16 or half, 32 tf32), a K-step of B is 128 / element-size rows of BN elements, and
// both are copied as 16-byte chunks.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "core/cp_async.cuh"
#include "core/raster.cuh"
#include "smemlab/tensor_matmul.hpp"

namespace smemlab::tensor_matmul::detail {

using smemlab::detail::cp_async16;
using smemlab::detail::cp_async_commit;
using smemlab::detail::cp_async_wait;
using smemlab::detail::TileOrigin;

// The input types. One mma.sync covers a 16 x 8 tile of C and 32 bytes of K: k16 for the
// 2-byte types (m16n8k16), k8 for tf32 (m16n8k8).
struct Bf16 {
  using Storage = __nv_bfloat16;
  static constexpr DType kType = DType::bf16;
};
struct Half {
  using Storage = __half;
  static constexpr DType kType = DType::f16;
};
struct Tf32 {
  using Storage = float;
  static constexpr DType kType = DType::tf32;
};
// f(E{}) for the input type's tag.
template <class F>
void with_input_type(DType input, F&& f) {
  switch (input) {
    case DType::bf16: f(Bf16{}); return;
    case DType::f16: f(Half{}); return;
    case DType::tf32: f(Tf32{}); return;
    default: throw std::invalid_argument("gemm: the tensor-core inputs are bf16, half or tf32");
  }
}

template <class E>
inline constexpr int kElemBytes = static_cast<int>(sizeof(typename E::Storage));
template <class E>
inline constexpr int kChunkElems = 16 / kElemBytes<E>;  // elements in a 16-byte chunk
template <class E>
inline constexpr bool kIsTf32 = std::is_same_v<E, Tf32>;

// The CUDA-core kernels (steps 15 and 19) read operands an element at a time where they lie:
// element `at` of an array of E's storage, widened to float (tf32: the float as given), and the
// offsets of A's (row, k) and B's (k, column) as stored, row-major or transposed (K x M, N x K).
template <class E>
__device__ __forceinline__ float element_as_float(const void* base, std::size_t at) {
  const auto* p = static_cast<const typename E::Storage*>(base) + at;
  if constexpr (kIsTf32<E>) {
    return *p;
  } else if constexpr (std::is_same_v<E, Bf16>) {
    return __bfloat162float(*p);
  } else {
    return __half2float(*p);
  }
}
template <bool Transposed>
__device__ __forceinline__ std::size_t a_offset(const GemmArgs& g, int row, int k) {
  return Transposed ? static_cast<std::size_t>(k) * g.lda + row : static_cast<std::size_t>(row) * g.lda + k;
}
template <bool Transposed>
__device__ __forceinline__ std::size_t b_offset(const GemmArgs& g, int k, int column) {
  return Transposed ? static_cast<std::size_t>(column) * g.ldb + k : static_cast<std::size_t>(k) * g.ldb + column;
}
// A 2-byte type whose B the Hopper tiles read K-major, as a caller stores it transposed (N x K):
// wgmma's own layout for B, where a row-major B (N-major) needs its transpose flag. tf32 B is
// always read K-major: wgmma takes tf32 in no other layout.
template <class E>
struct KMajorB : E {};
template <class E>
inline constexpr bool kBKMajor = kIsTf32<E>;
template <class E>
inline constexpr bool kBKMajor<KMajorB<E>> = true;
// A 2-byte type (or KMajorB of one) whose A the Hopper tiles read M-major, as a caller stores it
// transposed (K x M): wgmma reads it so with its transpose flag for A. tf32 takes A K-major only.
template <class E>
struct MMajorA : E {};
template <class E>
inline constexpr bool kAMMajor = false;
template <class E>
inline constexpr bool kAMMajor<MMajorA<E>> = true;
template <class E>
inline constexpr bool kBKMajor<MMajorA<E>> = kBKMajor<E>;

inline constexpr int kKStepBytes = 128;  // bytes of K per pipeline stage
inline constexpr int kMmaKBytes = 32;    // bytes of K per mma.sync

// Where chunk c of row r of a tile lives, in bytes from the tile's start.
// Padded: each row is followed by PadBytes, so rows that ldmatrix reads together start in
// different banks; the padding costs shared memory.
// Swizzled: rows are dense and chunk c is stored at c XOR f(r); the 16-byte chunks that one
// ldmatrix phase (8 rows, same column) or one warp's 4-byte reads touch land in distinct
// banks with no bytes wasted.
enum class Layout { padded, swizzled };

template <Layout L, int RowBytes, int PadBytes, int SwizzleShift, int SwizzleMask>
struct TileLayout {
  static constexpr int kPitch = L == Layout::padded ? RowBytes + PadBytes : RowBytes;
  // Rows this many apart have the same swizzle: offset(r + kPeriod * i, c) is offset(r, c)
  // plus a constant.
  static constexpr int kPeriod = L == Layout::padded ? 1 : SwizzleMask + 1;
  static __device__ __forceinline__ int offset(int r, int c) {
    if constexpr (L == Layout::padded) return r * kPitch + c * 16;
    return r * kPitch + ((c ^ ((r & SwizzleMask) << SwizzleShift)) * 16);
  }
  static constexpr int bytes(int rows) { return rows * kPitch; }
};

// A's tile: rows of 128 bytes, read by ldmatrix 8 rows x 16 bytes at a time: chunk ^ (r % 8).
template <Layout L>
using ATile = TileLayout<L, kKStepBytes, 16, 0, 7>;
// B's tile, K rows of BN elements. The 2-byte types are read by ldmatrix.trans like A:
// chunk ^ (r % 8). tf32 is read 4 bytes a lane, 4 rows x 8 columns a warp: chunk ^ 2 (r % 4)
// keeps those 32 words in 32 banks (padding needs 32 bytes a row for the same).
template <Layout L, class E, int BN>
using BTile = std::conditional_t<kIsTf32<E>, TileLayout<L, BN * 4, 32, 1, 3>, TileLayout<L, BN * 2, 16, 0, 7>>;

// How a thread fills one 16-byte chunk of a tile, by the alignment of the operands' rows
// (copy_granule). Granule 16: one cp.async of 16 bytes. Granule 4 (rows 4-byte aligned, as
// tf32's always are): four cp.async of 4 bytes, still asynchronous, so a ring of stages still
// hides the loads behind the math. Granule 2 (2-byte types whose rows start on odd elements):
// element by element through registers, each load waited for before its store to shared memory.
// The chunk's elements lie `stride` elements apart from `row`: 1 for a row as stored, the
// leading dimension for a column of an operand stored transposed (granules of one element only).
template <class E, int Granule, bool Checked>
__device__ __forceinline__ void copy_chunk(char* dst, const typename E::Storage* row, int col, int cols,
                                           bool row_valid, std::size_t stride = 1) {
  constexpr int kElems = kChunkElems<E>;
  static_assert(Granule == 16 || Granule == 4 || Granule == kElemBytes<E>);
  if constexpr (Granule == 16) {
    int bytes = 16;
    if constexpr (Checked) bytes = row_valid ? min(16, max(0, (cols - col) * kElemBytes<E>)) : 0;
    cp_async16(dst, bytes > 0 ? row + col : row, bytes);  // an empty copy still needs an aligned address
  } else if constexpr (Granule == 4) {
    constexpr int kPerGranule = 4 / kElemBytes<E>;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int first = col + i * kPerGranule;
      int bytes = 4;
      if constexpr (Checked) bytes = row_valid ? min(4, max(0, (cols - first) * kElemBytes<E>)) : 0;
      smemlab::detail::cp_async4_bytes(dst + 4 * i, bytes > 0 ? row + first * stride : row, bytes);
    }
  } else {
    using Bits = std::conditional_t<kElemBytes<E> == 2, std::uint16_t, std::uint32_t>;
    const auto* src = reinterpret_cast<const Bits*>(row);
    Bits v[kElems];
#pragma unroll
    for (int i = 0; i < kElems; ++i) v[i] = (!Checked || (row_valid && col + i < cols)) ? src[(col + i) * stride] : Bits{0};
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(v);
  }
}

// The widest copy every row of A and B allows: 16 bytes where both operands' pointers and
// leading dimensions are multiples of 16 bytes, else 4 where they are of 4, else one element;
// one element where an operand is stored transposed (its chunks are columns, read an element
// at a time).
inline int copy_granule(const GemmArgs& g) {
  if (g.transpose_a || g.transpose_b) return static_cast<int>(dtype_bytes(g.input));
  if (operands_16b_aligned(g)) return 16;
  const auto elem = static_cast<std::uintptr_t>(dtype_bytes(g.input));
  const bool rows_4b_aligned = reinterpret_cast<std::uintptr_t>(g.a) % 4 == 0 &&
                               reinterpret_cast<std::uintptr_t>(g.b) % 4 == 0 &&
                               static_cast<std::uintptr_t>(g.lda) * elem % 4 == 0 &&
                               static_cast<std::uintptr_t>(g.ldb) * elem % 4 == 0;
  return rows_4b_aligned ? 4 : static_cast<int>(elem);
}

// f(std::integral_constant<int, G>{}) for the copy granule of g's operands, among those E has.
template <class E, class F>
void with_copy_granule(const GemmArgs& g, F&& f) {
  const int granule = copy_granule(g);
  if (granule == 16) {
    f(std::integral_constant<int, 16>{});
  } else if (kElemBytes<E> == 4 || granule == 4) {  // tf32's one element is 4 bytes
    f(std::integral_constant<int, 4>{});
  } else if constexpr (kElemBytes<E> == 2) {
    f(std::integral_constant<int, 2>{});
  }
}

// The K-step at k0 into one stage: BM rows of A's columns k0.., K-step rows of B's columns
// col0... Checked: the block reaches past C's edge or the step past K; unchecked copies
// compute no predicates.
template <class E, int BM, int BN, int Threads, Layout L, int Granule, bool Checked>
__device__ __forceinline__ void copy_k_step(const GemmArgs& g, const TileOrigin& t, int k0, char* a_stage,
                                            char* b_stage) {
  using A = ATile<L>;
  using B = BTile<L, E, BN>;
  constexpr int kAChunksPerRow = kKStepBytes / 16;
  constexpr int kBChunksPerRow = BN * kElemBytes<E> / 16;
  constexpr int kBRows = kKStepBytes / kElemBytes<E>;
  constexpr int kElems = kChunkElems<E>;
  const int tid = static_cast<int>(threadIdx.x);
  const auto* a = static_cast<const typename E::Storage*>(g.a);
  const auto* b = static_cast<const typename E::Storage*>(g.b);
  static_assert(BM * kAChunksPerRow % Threads == 0 && kBRows * kBChunksPerRow % Threads == 0);
  // An operand stored transposed (copied an element at a time): a row of the tile is a column
  // of what is stored, its elements a leading dimension apart.
  constexpr bool kMayTranspose = Granule == kElemBytes<E>;
  const bool a_transposed = kMayTranspose && g.transpose_a;
  const bool b_transposed = kMayTranspose && g.transpose_b;
  const std::size_t a_row_step = a_transposed ? 1 : g.lda;
  const std::size_t a_stride = a_transposed ? g.lda : 1;
  const std::size_t b_row_step = b_transposed ? 1 : g.ldb;
  const std::size_t b_stride = b_transposed ? g.ldb : 1;
#pragma unroll
  for (int i = 0; i < BM * kAChunksPerRow / Threads; ++i) {
    const int e = tid + i * Threads;
    const int r = e / kAChunksPerRow;
    const int c = e % kAChunksPerRow;
    const bool row_valid = !Checked || t.row0 + r < g.m;
    const auto* row = a + static_cast<std::size_t>(row_valid ? t.row0 + r : 0) * a_row_step;
    copy_chunk<E, Granule, Checked>(a_stage + A::offset(r, c), row, k0 + c * kElems, g.k, row_valid, a_stride);
  }
#pragma unroll
  for (int i = 0; i < kBRows * kBChunksPerRow / Threads; ++i) {
    const int e = tid + i * Threads;
    const int r = e / kBChunksPerRow;
    const int c = e % kBChunksPerRow;
    const bool row_valid = !Checked || k0 + r < g.k;
    const auto* row = b + static_cast<std::size_t>(row_valid ? k0 + r : 0) * b_row_step;
    copy_chunk<E, Granule, Checked>(b_stage + B::offset(r, c), row, t.col0 + c * kElems, g.n, row_valid, b_stride);
  }
}

// The copies of the full K-steps (all but a last partial one) with 16-byte cp.async. A
// thread's chunks keep their column and lie a fixed number of rows apart, so their addresses
// are computed once per block and move by a constant per K-step; which of them lie inside C
// is fixed per block too. Edge blocks zero-fill the rows and columns past C's edge; interior
// blocks compute no predicates.
template <class E, int BM, int BN, int Threads, Layout L>
struct StepCopy {
  using A = ATile<L>;
  using B = BTile<L, E, BN>;
  static constexpr int kElems = kChunkElems<E>;
  static constexpr int kARowsPerPass = Threads / (kKStepBytes / 16);
  static constexpr int kAPasses = BM / kARowsPerPass;
  static constexpr int kBChunksPerRow = BN * kElemBytes<E> / 16;
  static constexpr int kBRowsPerPass = Threads / kBChunksPerRow;
  static constexpr int kBPasses = kKStepBytes / kElemBytes<E> / kBRowsPerPass;
  static_assert(Threads % kBChunksPerRow == 0 && kAPasses * kARowsPerPass == BM && kAPasses <= 32);
  static_assert(kARowsPerPass % A::kPeriod == 0 && kBRowsPerPass % B::kPeriod == 0,
                "a thread's chunks share one swizzle");
  const char* a;  // this thread's first chunk of A at the next K-step to copy
  const char* b;  // and of B
  int a_dst, b_dst;  // their offsets in a stage
  unsigned a_rows_inside;  // bit i: pass i's row of A lies inside C
  int b_bytes;             // bytes of this thread's B column inside C: 16, or fewer at the edge

  __device__ __forceinline__ StepCopy(const GemmArgs& g, const TileOrigin& t) {
    const int tid = static_cast<int>(threadIdx.x);
    const int a_row = tid / (kKStepBytes / 16);
    const int a_chunk = tid % (kKStepBytes / 16);
    a = static_cast<const char*>(g.a) + (static_cast<std::size_t>(t.row0 + a_row) * g.lda + a_chunk * kElems) * kElemBytes<E>;
    a_dst = A::offset(a_row, a_chunk);
    a_rows_inside = 0;
#pragma unroll
    for (int i = 0; i < kAPasses; ++i) a_rows_inside |= (t.row0 + a_row + i * kARowsPerPass < g.m ? 1U : 0U) << i;
    const int b_row = tid / kBChunksPerRow;
    const int b_chunk = tid % kBChunksPerRow;
    const int col = t.col0 + b_chunk * kElems;
    b_bytes = min(16, max(0, (g.n - col) * kElemBytes<E>));
    // A column wholly outside C copies nothing, from a valid address.
    b = static_cast<const char*>(g.b) + (static_cast<std::size_t>(b_row) * g.ldb + (b_bytes > 0 ? col : 0)) * kElemBytes<E>;
    b_dst = B::offset(b_row, b_chunk);
  }

  // Moves to K-step `steps` without copying: a range of K that starts past the first step.
  __device__ __forceinline__ void skip(const GemmArgs& g, int steps) {
    a += static_cast<std::size_t>(steps) * kKStepBytes;
    b += static_cast<std::size_t>(steps) * (kKStepBytes / kElemBytes<E>) * g.ldb * kElemBytes<E>;
  }

  // Copies the next K-step, at k0, and moves on to the one after.
  template <bool Edge>
  __device__ __forceinline__ void copy(const GemmArgs& g, int k0, char* a_stage, char* b_stage) {
    const std::size_t a_pass = static_cast<std::size_t>(kARowsPerPass) * g.lda * kElemBytes<E>;
    const std::size_t b_pass = static_cast<std::size_t>(kBRowsPerPass) * g.ldb * kElemBytes<E>;
#pragma unroll
    for (int i = 0; i < kAPasses; ++i) {
      char* dst = a_stage + a_dst + i * kARowsPerPass * A::kPitch;
      if constexpr (Edge) {
        const bool inside = (a_rows_inside >> i & 1U) != 0;
        // A row past C's edge copies nothing, from the first row (always valid).
        cp_async16(dst, inside ? a + i * a_pass : static_cast<const char*>(g.a) + static_cast<std::size_t>(k0) * kElemBytes<E>,
                   inside ? 16 : 0);
      } else {
        cp_async16(dst, a + i * a_pass, 16);
      }
    }
#pragma unroll
    for (int i = 0; i < kBPasses; ++i)
      cp_async16(b_stage + b_dst + i * kBRowsPerPass * B::kPitch, b + i * b_pass, Edge ? b_bytes : 16);
    a += kKStepBytes;
    b += static_cast<std::size_t>(kKStepBytes / kElemBytes<E>) * g.ldb * kElemBytes<E>;
  }
};

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Four 8x8 matrices of 16-bit elements (or 8 x 4 of 32-bit ones): lane l gives the address
// of row l % 8 of matrix l / 8; register i receives this lane's piece of matrix i.
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// The same, each matrix transposed on the way: how B, stored K-major, becomes the
// column-major fragment mma.sync takes.
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// d += a * b on one 16 x 8 tile of C, 32 bytes of K. tf32 takes the upper 19 bits of each
// float (the hardware ignores the low 13: rounding toward zero).
template <class E>
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  if constexpr (std::is_same_v<E, Bf16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else if constexpr (std::is_same_v<E, Half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// C(r, c) = alpha * acc + beta * C(r, c); beta == 0 never reads C (it may hold NaN, as BLAS
// allows). Checked: skip what lies outside C.
template <bool Checked>
__device__ __forceinline__ void store_c(const GemmArgs& g, int r, int c, float acc) {
  if constexpr (Checked) {
    if (r >= g.m || c >= g.n) return;
  }
  float* p = g.c + static_cast<std::size_t>(r) * g.ldc + c;
  *p = g.beta == 0.0F ? g.alpha * acc : g.alpha * acc + g.beta * *p;
}

// C(r, c..c+1): one 8-byte access when Pair (aligned C, even ldc) and both lie inside C.
template <bool Checked, bool Pair>
__device__ __forceinline__ void store_c2(const GemmArgs& g, int r, int c, float acc0, float acc1) {
  if constexpr (Pair) {
    if (!Checked || (r < g.m && c + 1 < g.n)) {
      auto* p = reinterpret_cast<float2*>(g.c + static_cast<std::size_t>(r) * g.ldc + c);
      float2 out{g.alpha * acc0, g.alpha * acc1};
      if (g.beta != 0.0F) {
        const float2 old = *p;
        out = {out.x + g.beta * old.x, out.y + g.beta * old.y};
      }
      *p = out;
      return;
    }
  }
  store_c<Checked>(g, r, c, acc0);
  store_c<Checked>(g, r, c + 1, acc1);
}

// Calls store(checked, pairs) with the epilogue's compile-time choice: bounds checked in tiles
// at C's edge, 8-byte stores of pairs where C's rows allow them.
template <class Store>
__device__ __forceinline__ void store_tile(bool edge, bool c_pairs, Store&& store) {
  if (edge) {
    store(std::true_type{}, std::false_type{});
  } else if (c_pairs) {
    store(std::false_type{}, std::true_type{});
  } else {
    store(std::false_type{}, std::false_type{});
  }
}

inline bool c_pairs_aligned(const GemmArgs& g) {
  return reinterpret_cast<std::uintptr_t>(g.c) % 8 == 0 && g.ldc % 2 == 0;
}

}  // namespace smemlab::tensor_matmul::detail
