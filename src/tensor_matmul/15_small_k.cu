// 15 — a product over a short K on the CUDA cores. Changed from the tensor-core steps: where K is
// a few elements (a rank-k update, an outer product, features times a small embedding), each
// output takes a handful of multiply-adds and the product is bound by writing C once, a
// float an output. The tensor-core tiles spend their time on a first K-step that is mostly
// zero padding, on operands copied to aligned rows first (K of 4 bf16 is an 8-byte row), and
// on stores of two columns in eight rows a warp. Here a block of 256 threads owns a 32 x 256
// tile of C, thread t its column t; each 16-element chunk of K is read where it lies, an
// element at a time into shared memory (A's chunk with its rows contiguous for each element of
// K, so that each thread reads four rows' values for one k in one 16-byte load, all lanes of a
// warp at one address: a broadcast), and every row of the tile is stored by 256 threads on
// consecutive columns: whole 32-byte sectors, whatever C's alignment. Operands stored
// transposed are read where they lie too: A's chunk then comes from consecutive elements of
// Aᵀ's rows (consecutive threads on consecutive rows of A), B's from each thread's own row of
// Bᵀ (16 consecutive elements: one or two 32-byte sectors, two or three in tf32). The sums are
// in float, from the inputs as given (tf32 operands are not rounded to tf32: the result is as
// precise as FP32's).
// Should buy: C written near the DRAM's speed in one launch; at 299 x 8817 x 4 (bf16, 10.5 MB
// of C) about 6 µs against cuBLAS's 10 and the in-place tensor-core tile's 21 on an H100.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "smemlab/access_model.hpp"
#include "smemlab/error.hpp"
#include "smemlab/shape.hpp"
#include "tensor_matmul/mma_device.cuh"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kRows = 32;           // of C a block
constexpr int kColumns = kThreads;  // of C a block: one a thread
constexpr int kChunk = 16;          // elements of K in shared memory at a time

// One block's tile. Checked: it crosses C's last row or column (K's end is checked everywhere:
// it falls inside the last chunk). TransposedA, TransposedB: the operands as stored.
template <class E, bool Checked, bool TransposedA, bool TransposedB>
__device__ __forceinline__ void small_k_tile(const GemmArgs& g, int row0, int col0,
                                             float (&a_chunk)[kChunk][kRows],
                                             float (&b_chunk)[kChunk][kColumns]) {
  const int t = static_cast<int>(threadIdx.x);
  float acc[kRows] = {};
  for (int k0 = 0; k0 < g.k; k0 += kChunk) {
    // Consecutive threads on consecutive rows of one column of K: conflict-free stores.
#pragma unroll
    for (int i = t; i < kRows * kChunk; i += kThreads) {
      const int r = i % kRows;
      const int kk = i / kRows;
      const bool inside = k0 + kk < g.k && (!Checked || row0 + r < g.m);
      a_chunk[kk][r] = inside ? element_as_float<E>(g.a, a_offset<TransposedA>(g, row0 + r, k0 + kk)) : 0.0F;
    }
#pragma unroll
    for (int kk = 0; kk < kChunk; ++kk) {
      const bool inside = k0 + kk < g.k && (!Checked || col0 + t < g.n);
      b_chunk[kk][t] = inside ? element_as_float<E>(g.b, b_offset<TransposedB>(g, k0 + kk, col0 + t)) : 0.0F;
    }
    __syncthreads();
    const auto multiply = [&](int kk) {
      const float b = b_chunk[kk][t];
#pragma unroll
      for (int r = 0; r < kRows; r += 4) {
        const float4 a = *reinterpret_cast<const float4*>(&a_chunk[kk][r]);
        acc[r] += a.x * b;
        acc[r + 1] += a.y * b;
        acc[r + 2] += a.z * b;
        acc[r + 3] += a.w * b;
      }
    };
    // A whole chunk unrolled; a last partial one only to K's end (at K of 4, a quarter of the
    // reads and multiply-adds).
    if (k0 + kChunk <= g.k) {
#pragma unroll
      for (int kk = 0; kk < kChunk; ++kk) multiply(kk);
    } else {
#pragma unroll 1
      for (int kk = 0; kk < g.k - k0; ++kk) multiply(kk);
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) store_c<Checked>(g, row0 + r, col0 + t, acc[r]);
}

// Block b: the tile in row b / column_tiles, column b % column_tiles.
template <class E, bool TransposedA, bool TransposedB>
__global__ void __launch_bounds__(kThreads) small_k_kernel(GemmArgs g, int column_tiles) {
  __shared__ __align__(16) float a_chunk[kChunk][kRows];  // A's chunk, rows contiguous for each k
  __shared__ float b_chunk[kChunk][kColumns];
  const int row0 = static_cast<int>(blockIdx.x) / column_tiles * kRows;
  const int col0 = static_cast<int>(blockIdx.x) % column_tiles * kColumns;
  if (row0 + kRows > g.m || col0 + kColumns > g.n) {
    small_k_tile<E, true, TransposedA, TransposedB>(g, row0, col0, a_chunk, b_chunk);
  } else {
    small_k_tile<E, false, TransposedA, TransposedB>(g, row0, col0, a_chunk, b_chunk);
  }
}

template <class E>
void launch_small_k(const GemmArgs& g, cudaStream_t stream) {
  const int column_tiles = (g.n + kColumns - 1) / kColumns;
  const long long tiles = static_cast<long long>((g.m + kRows - 1) / kRows) * column_tiles;
  if (tiles > 0x7FFFFFFFLL) throw std::invalid_argument("gemm: C has more tiles than a grid holds");
  const auto launch = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(g, column_tiles);
    SMEMLAB_LAUNCH_CHECK();
  };
  if (g.transpose_a && g.transpose_b) {
    launch(small_k_kernel<E, true, true>);
  } else if (g.transpose_a) {
    launch(small_k_kernel<E, true, false>);
  } else if (g.transpose_b) {
    launch(small_k_kernel<E, false, true>);
  } else {
    launch(small_k_kernel<E, false, false>);
  }
}

// Per block and chunk of K, each thread stores 2 elements of A's chunk and 16 of B's; per
// element of K it reads 1 of B's chunk and A's chunk 4 rows at a time, 8 times, every lane of
// a warp at the same address.
AccessModel small_k_model(const Shape& shape, DType input) {
  const GemmShape g = gemm_shape(shape);
  const double chunks = std::ceil(static_cast<double>(g.k) / kChunk);
  const double tiles =
      std::ceil(static_cast<double>(g.m) / kRows) * std::ceil(static_cast<double>(g.n) / kColumns);
  AccessModel model;
  model.kernel = std::string("small_k_kernel<") +
                 (input == DType::bf16  ? "Bf16"
                  : input == DType::f16 ? "Half"
                                        : "Tf32") +
                 ", false, false>(";  // operands row-major
  model.block = {kThreads, 1, 1};
  model.smem_bytes = sizeof(float) * kChunk * (kRows + kColumns);
  model.blocks = tiles;
  model.accesses.push_back(
      counted_access("A chunk stores (rows contiguous)", "st", "tx", model.block, 4, chunks * 2));
  model.accesses.push_back(counted_access("B chunk stores", "st", "tx", model.block, 4, chunks * kChunk));
  model.accesses.push_back(
      counted_access("B reads, a column a thread", "ld", "tx", model.block, 4, static_cast<double>(g.k)));
  model.accesses.push_back(counted_access("A reads, 4 rows, every lane at one address", "ld", "0",
                                          model.block, 16, static_cast<double>(g.k) * kRows / 4));
  const double elem = static_cast<double>(dtype_bytes(input));
  model.flops = 2.0 * g.m * g.n * g.k;
  model.global_bytes = tiles * chunks * kChunk * (kRows + kColumns) * elem + 4.0 * g.m * g.n;
  model.traffic = "K/" + std::to_string(kColumns) + " elements of A and K/" + std::to_string(kRows) +
                  " of B per output, and the output's 4 bytes";
  model.notes =
      "Loads of A and B from global memory are element-wide (any alignment); K's chunks past its end "
      "are zero. Every lane of a warp reads the same 16 bytes of A's chunk at once.";
  return model;
}

}  // namespace

void launch_small_k_kernel(const GemmArgs& args, const LaunchContext& ctx) {
  with_input_type(args.input, [&](auto e) { launch_small_k<decltype(e)>(args, ctx.stream); });
}

TensorVariant small_k_variant() {
  return {
      {.family = "tensor-matmul",
       .name = "small_k",
       .description = "for a short K: 32 x 256 tiles of C on the CUDA cores, operands read where they lie, "
                      "each row of the tile stored on consecutive columns",
       .technique = "no tensor cores where K is a few elements: the product is bound by writing C",
       .smem = SmemKind::static_alloc,
       .dtypes = kTensorInputs,
       .model = small_k_model,
       .reads_transposed = true},
      launch_small_k_kernel};
}

}  // namespace smemlab::tensor_matmul::detail
