// 13 — products with few rows or few columns, on the CUDA cores. A matrix times a handful of
// vectors (n <= 16), or a handful of rows times a matrix (m <= 16): each element of the large
// operand takes part in at most 16 multiply-adds, so the product is bound by reading that
// operand from DRAM, not by the FMAs. The tiles of 12 are at least 32 wide on both sides: they
// read rows and columns that C does not have, and their shared-memory pipeline is built for
// reuse that is not there.
// Changed from 12: no tiles of C. The large operand streams once, each of its elements
// multiplied by the few elements of the small side that meet it, which sit in shared memory,
// read by every thread of a block. Few rows stream B through registers, a warp's lanes along
// B's row; one or two columns stream A through registers, lanes along K; three to sixteen
// columns copy A's rows to shared memory in coalesced chunks, and each thread takes one row of
// C whole, so that no sums cross lanes. K is divided into ranges so that the blocks fill every
// SM, and a second launch adds the ranges' partial sums in range order (the same bits in every
// run). A thin side of more than 16 is taken 16 at a time (correct on any shape, fast only
// on thin ones).
// Should buy: the large operand read near DRAM speed; at least cuBLAS's speed where 12 ran at
// 0.15-0.60 of it (84x1x9606, 1x1398x8689, 2x1806x446: 1-3 tiles of C, their K cut into
// slices of 32x32 tiles).
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "core/cp_async.cuh"
#include "core/memo.hpp"
#include "core/occupancy.hpp"
#include "core/per_device.hpp"
#include "core/gemm_operands.hpp"
#include "matmul/gemm_device.cuh"
#include "matmul/skinny.hpp"
#include "matmul/variants.hpp"
#include "matmul/workspace.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kThin = 16;  // the most rows (or columns) of C a block holds
// Few rows: each lane holds 4 columns of C, so a block spans 128 columns; A's rows come in
// chunks of 256 of K (32 for each warp, between two of the block's barriers).
constexpr int kRowsChunk = 256;
constexpr int kRowsBlockCols = 4 * 32;
// Few columns, one or two: each warp holds 4 rows of C (so that every element of B read from
// shared memory meets 4 of A), a block 32 rows; each lane takes 4 of K in a chunk of 128.
constexpr int kAlongKRowsPerWarp = 4;
constexpr int kAlongKBlockRows = kAlongKRowsPerWarp * kThreads / 32;
constexpr int kAlongKChunk = 128;
// Few columns, three to sixteen: a thread holds one row of C, a block 128 rows; K in chunks of
// 32 elements in a ring of three (two in flight while one is multiplied), A's rows 36 floats
// apart in shared memory (B's chunk of 32 x N after them).
constexpr int kColsThreads = 128;
constexpr int kColsChunk = 32;
constexpr int kColsStages = 3;
constexpr int kColsPitch = kColsChunk + 4;
constexpr int cols_stage_floats(int n) { return kColsThreads * kColsPitch + kColsChunk * n; }
constexpr std::size_t cols_smem_bytes(int n) { return sizeof(float) * kColsStages * cols_stage_floats(n); }

// Few rows: rows of B a warp loads before it waits (the loop's unrolling), as many as the
// registers allow beside M x 4 sums.
constexpr int rows_in_flight(int m) { return m <= 4 ? 8 : 4; }

// One or two columns of C take the lanes-along-K kernel: its sums cross lanes, but few of them.
constexpr bool columns_along_k(int width) { return width <= 2; }

// Thin sides are compiled for 1, 2, 4, 8 and 16; a side in between takes the next.
int thin_width(int side) {
  int w = 1;
  while (w < std::min(side, kThin)) w *= 2;
  return w;
}

// C(r, c) for range `range` of K: the final value when K is one range, else its partial sum.
__device__ __forceinline__ void store_result(const GemmArgs& g, float* partials, int range, int r, int c,
                                             float acc) {
  if (partials == nullptr) {
    store_c(g.c + static_cast<std::size_t>(r) * g.ldc + c, acc, g.alpha, g.beta);
  } else {
    partials[(static_cast<std::size_t>(range) * g.m + r) * g.n + c] = acc;
  }
}

// Few rows: block (span of 128 columns, group of M rows) over range blockIdx.y of K. A's
// M x 256 chunk sits in shared memory as [k][row], read by every thread at once (a broadcast).
// Each warp holds the span's 128 columns and takes every eighth row of K: lane l reads 4 of B's
// columns a row, 16 bytes at a time when B's rows are aligned (Vector), else 4 bytes at a time
// 32 apart, so that each warp's loads cover whole lines either way. The eight warps' sums are
// added through shared memory at the range's end, warp 0 first.
template <int M, bool Vector>
__global__ void __launch_bounds__(kThreads) few_rows_kernel(GemmArgs g, int range_k, float* partials) {
  constexpr int kWarps = kThreads / 32;
  __shared__ __align__(16) float a_tile[kRowsChunk][M];
  __shared__ float warp_sums[kWarps][kRowsBlockCols];
  const int spans = (g.n + kRowsBlockCols - 1) / kRowsBlockCols;
  const int span = static_cast<int>(blockIdx.x % spans);
  const int row0 = static_cast<int>(blockIdx.x / spans) * M;
  const int rows = min(M, g.m - row0);
  const int k0 = static_cast<int>(blockIdx.y) * range_k;
  const int k1 = k0 + min(range_k, g.k - k0);  // k0 + range_k may pass INT_MAX in the last range
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % 32;
  const int warp = t / 32;
  const auto offset = [&](int q) { return Vector ? 4 * lane + q : lane + 32 * q; };  // in the span
  const int first = span * kRowsBlockCols;
  const bool all_four = first + offset(0) + 3 < g.n;  // Vector: the lane's columns are consecutive

  float acc[M][4] = {};
  const int chunks = (k1 - k0 - 1) / kRowsChunk + 1;  // every range holds some of K
  for (int chunk = 0; chunk < chunks; ++chunk) {  // counted from k0: no index passes K
    const int kc = k0 + chunk * kRowsChunk;
    const int steps = min(kRowsChunk, k1 - kc);
    __syncthreads();  // the previous chunk's reads are done
    for (int e = t; e < M * kRowsChunk; e += kThreads) {
      const int i = e / kRowsChunk;
      const int kk = e % kRowsChunk;
      a_tile[kk][i] = i < rows && kk < steps ? g.a[static_cast<std::size_t>(row0 + i) * g.lda + kc + kk] : 0.0F;
    }
    __syncthreads();
    const float* b_row = g.b + (static_cast<std::size_t>(kc) + warp) * g.ldb + first;
#pragma unroll(rows_in_flight(M))
    for (int kk = warp; kk < steps; kk += kWarps, b_row += kWarps * static_cast<std::size_t>(g.ldb)) {
      float b[4];
      if (Vector && all_four) {
        const float4 v = *reinterpret_cast<const float4*>(b_row + offset(0));
        b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) b[q] = first + offset(q) < g.n ? b_row[offset(q)] : 0.0F;
      }
      float a[M];
      if constexpr (M % 4 == 0) {
#pragma unroll
        for (int i = 0; i < M; i += 4) {
          const float4 v = *reinterpret_cast<const float4*>(&a_tile[kk][i]);
          a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
        }
      } else {
#pragma unroll
        for (int i = 0; i < M; ++i) a[i] = a_tile[kk][i];
      }
#pragma unroll
      for (int i = 0; i < M; ++i)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[i][q] = fmaf(a[i], b[q], acc[i][q]);
    }
  }
#pragma unroll
  for (int i = 0; i < M; ++i) {
    if (i >= rows) break;
    __syncthreads();  // warp_sums is free
#pragma unroll
    for (int q = 0; q < 4; ++q) warp_sums[warp][offset(q)] = acc[i][q];
    __syncthreads();
    if (t < kRowsBlockCols && first + t < g.n) {
      float sum = warp_sums[0][t];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) sum += warp_sums[w][t];
      store_result(g, partials, blockIdx.y, row0 + i, first + t, sum);
    }
  }
}

// Few columns, one or two (lanes along K): block (32 rows, group of N columns) over range
// blockIdx.y of K. B's 128 x N
// chunk sits in shared memory transposed, [column][k], in 16-byte granules whose order within
// a row is XORed with the column, so that the reads are free of bank conflicts and the copy in
// has at most two lanes a bank. Each lane takes 4 of K from each of its warp's 4 rows of A (one 16-byte load
// each when A's rows are aligned: Vector; else 4 loads 32 apart), meets them with the same 4
// of every column of B, and the warp adds its lanes' sums by shuffles at the range's end.
template <int N, bool Vector>
__global__ void __launch_bounds__(kThreads) few_columns_along_k_kernel(GemmArgs g, int range_k, float* partials) {
  __shared__ __align__(16) float b_tile[N][kAlongKChunk];
  const int row_blocks = (g.m + kAlongKBlockRows - 1) / kAlongKBlockRows;
  const int col0 = static_cast<int>(blockIdx.x / row_blocks) * N;
  const int cols = min(N, g.n - col0);
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % 32;
  const int row0 = static_cast<int>(blockIdx.x % row_blocks) * kAlongKBlockRows + (t / 32) * kAlongKRowsPerWarp;
  const int k0 = static_cast<int>(blockIdx.y) * range_k;
  const int k1 = k0 + min(range_k, g.k - k0);
  // Position in a row of b_tile of element kk: its granule swapped with another of the same row.
  const auto at = [](int column, int kk) { return ((kk / 4) ^ (column % 8)) * 4 + kk % 4; };
  const auto lane_k = [&](int q) { return Vector ? 4 * lane + q : lane + 32 * q; };

  float acc[kAlongKRowsPerWarp][N] = {};
  const int chunks = (k1 - k0 - 1) / kAlongKChunk + 1;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    const int kc = k0 + chunk * kAlongKChunk;
    const int steps = min(kAlongKChunk, k1 - kc);
    __syncthreads();
    for (int e = t; e < N * kAlongKChunk; e += kThreads) {
      const int kk = e / N;
      const int j = e % N;
      b_tile[j][at(j, kk)] = j < cols && kk < steps ? g.b[static_cast<std::size_t>(kc + kk) * g.ldb + col0 + j] : 0.0F;
    }
    __syncthreads();
    float a[kAlongKRowsPerWarp][4];
#pragma unroll
    for (int r = 0; r < kAlongKRowsPerWarp; ++r) {
      const bool row_in = row0 + r < g.m;
      const float* a_row = g.a + static_cast<std::size_t>(row_in ? row0 + r : 0) * g.lda + kc;
      if (Vector && row_in && lane_k(3) < steps) {
        const float4 v = *reinterpret_cast<const float4*>(a_row + lane_k(0));
        a[r][0] = v.x, a[r][1] = v.y, a[r][2] = v.z, a[r][3] = v.w;
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) a[r][q] = row_in && lane_k(q) < steps ? a_row[lane_k(q)] : 0.0F;
      }
    }
#pragma unroll
    for (int j = 0; j < N; ++j) {
      float b[4];
      if constexpr (Vector) {
        const float4 v = *reinterpret_cast<const float4*>(&b_tile[j][at(j, 4 * lane)]);
        b[0] = v.x, b[1] = v.y, b[2] = v.z, b[3] = v.w;
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) b[q] = b_tile[j][at(j, lane_k(q))];
      }
#pragma unroll
      for (int r = 0; r < kAlongKRowsPerWarp; ++r)
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[r][j] = fmaf(a[r][q], b[q], acc[r][j]);
    }
  }
#pragma unroll
  for (int r = 0; r < kAlongKRowsPerWarp; ++r)
#pragma unroll
    for (int j = 0; j < N; ++j) {
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) acc[r][j] += __shfl_xor_sync(0xFFFFFFFFU, acc[r][j], offset);
      if (lane == j && j < cols && row0 + r < g.m) store_result(g, partials, blockIdx.y, row0 + r, col0 + j, acc[r][j]);
    }
}

// Few columns, three to sixteen (a thread a row; compiled for 4, 8 and 16): block (128 rows,
// group of N columns) over range blockIdx.y of K, a thread for each row of C holding its N
// sums. K comes in chunks of 32 through a ring of three (cp.async): A's 128 x 32 chunk is copied
// to shared memory 16 bytes a lane where A's rows are 16-byte aligned (Vector), else 4 bytes a
// lane, a warp's copies on consecutive elements of a row either way, so that they are coalesced.
// There A's rows lie 36 floats apart: each thread reads its own row 16 bytes at a time, and the
// 8 lanes a 16-byte read serves at once meet 32 different banks. B's 32 x N chunk lies beside
// it, zero past K's and C's edges, and every lane reads the same elements of it (a broadcast).
// No sums cross lanes, so a short K costs no reduction.
template <int N, bool Vector>
__global__ void __launch_bounds__(kColsThreads) few_columns_by_row_kernel(GemmArgs g, int range_k, float* partials) {
  extern __shared__ __align__(16) float cols_smem[];
  constexpr int kStageFloats = cols_stage_floats(N);
  constexpr int kBOffset = kColsThreads * kColsPitch;
  const int row_blocks = (g.m + kColsThreads - 1) / kColsThreads;
  const int col0 = static_cast<int>(blockIdx.x / row_blocks) * N;
  const int cols = min(N, g.n - col0);
  const int row0 = static_cast<int>(blockIdx.x % row_blocks) * kColsThreads;
  const int t = static_cast<int>(threadIdx.x);
  const int k0 = static_cast<int>(blockIdx.y) * range_k;
  const int k_len = min(range_k, g.k - k0);  // k0 + range_k may pass INT_MAX in the last range
  const auto copy = [&](int chunk, int stage) {
    float* a_s = cols_smem + stage * kStageFloats;
    float* b_s = a_s + kBOffset;
    const int kc = k0 + chunk * kColsChunk;
    const int steps = min(kColsChunk, k_len - chunk * kColsChunk);
    constexpr int kWidth = Vector ? 4 : 1;  // floats a copy
    constexpr int kPerRow = kColsChunk / kWidth;
    const int kk = t % kPerRow * kWidth;
#pragma unroll
    for (int r = t / kPerRow; r < kColsThreads; r += kColsThreads / kPerRow) {
      const int bytes = row0 + r < g.m ? 4 * max(0, min(kWidth, steps - kk)) : 0;
      const float* src = bytes > 0 ? g.a + static_cast<std::size_t>(row0 + r) * g.lda + kc + kk : g.a;
      if constexpr (Vector) {
        smemlab::detail::cp_async16(a_s + r * kColsPitch + kk, src, bytes);
      } else {
        smemlab::detail::cp_async4_bytes(a_s + r * kColsPitch + kk, src, bytes);
      }
    }
    for (int e = t; e < kColsChunk * N; e += kColsThreads) {
      const int kr = e / N;
      const int j = e % N;
      const bool valid = kr < steps && j < cols;
      const float* src = valid ? g.b + static_cast<std::size_t>(kc + kr) * g.ldb + col0 + j : g.b;
      smemlab::detail::cp_async4(b_s + e, src, valid);
    }
  };
  float acc[N] = {};
  const auto compute = [&](int stage) {
    const float* a_row = cols_smem + stage * kStageFloats + t * kColsPitch;
    const float* b_s = cols_smem + stage * kStageFloats + kBOffset;
#pragma unroll 2
    for (int q = 0; q < kColsChunk; q += 4) {  // past K both operands hold zeros
      const float4 a4 = *reinterpret_cast<const float4*>(a_row + q);
      const float a[4] = {a4.x, a4.y, a4.z, a4.w};
      // B's rows q to q + 3: 4 x N consecutive floats, N reads of 16 bytes.
      float b[4 * N];
#pragma unroll
      for (int i = 0; i < N; ++i) {
        const float4 v = *reinterpret_cast<const float4*>(b_s + q * N + 4 * i);
        b[4 * i] = v.x, b[4 * i + 1] = v.y, b[4 * i + 2] = v.z, b[4 * i + 3] = v.w;
      }
#pragma unroll
      for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int j = 0; j < N; ++j) acc[j] = fmaf(a[c], b[c * N + j], acc[j]);
    }
  };
  smemlab::detail::pipelined_steps<kColsStages>((k_len + kColsChunk - 1) / kColsChunk, copy, compute);
  if (row0 + t >= g.m) return;
#pragma unroll
  for (int j = 0; j < N; ++j)
    if (j < cols) store_result(g, partials, static_cast<int>(blockIdx.y), row0 + t, col0 + j, acc[j]);
}

// C = alpha * (the ranges' partial sums added in range order) + beta * C.
__global__ void __launch_bounds__(kThreads) sum_ranges_kernel(GemmArgs g, int ranges, const float* partials) {
  const std::size_t elements = static_cast<std::size_t>(g.m) * g.n;
  for (std::size_t e = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x; e < elements;
       e += static_cast<std::size_t>(gridDim.x) * kThreads) {
    float sum = 0.0F;
    for (int r = 0; r < ranges; ++r) sum += partials[static_cast<std::size_t>(r) * elements + e];
    store_c(g.c + e / g.n * g.ldc + e % g.n, sum, g.alpha, g.beta);
  }
}

using KernelFn = void (*)(GemmArgs, int, float*);

// The kernel for a thin side of `width` (1, 2, 4, 8 or 16): few rows, or few columns (one or two
// along K; more a thread a row, that kernel allowed its shared memory).
template <bool Vector>
KernelFn kernel_for(bool rows_side, int width) {
  const auto pick = [rows_side](auto w) -> KernelFn {
    constexpr int kW = decltype(w)::value;
    if (rows_side) return few_rows_kernel<kW, Vector>;
    if constexpr (columns_along_k(kW)) {
      return few_columns_along_k_kernel<kW, Vector>;
    } else {
      smemlab::detail::allow_dynamic_smem(few_columns_by_row_kernel<kW, Vector>, cols_smem_bytes(kW));
      return few_columns_by_row_kernel<kW, Vector>;
    }
  };
  switch (width) {
    case 1: return pick(std::integral_constant<int, 1>{});
    case 2: return pick(std::integral_constant<int, 2>{});
    case 4: return pick(std::integral_constant<int, 4>{});
    case 8: return pick(std::integral_constant<int, 8>{});
    default: return pick(std::integral_constant<int, 16>{});
  }
}

// The plan of plan_skinny, computed: its search over splits takes up to a few thousand steps,
// longer than a small product's launch, so plan_skinny keeps each result.
SkinnyPlan compute_plan(int m, int n, int k, int sms) {
  SkinnyPlan p;
  p.few_rows = m <= n;
  const int thin = p.few_rows ? m : n;
  p.width = thin_width(thin);
  p.by_row = !p.few_rows && !columns_along_k(p.width);
  const long long groups = (thin + p.width - 1) / p.width;
  const int block_rows = p.by_row ? kColsThreads : kAlongKBlockRows;
  const long long per_group =
      p.few_rows ? (n + kRowsBlockCols - 1) / kRowsBlockCols : (m + block_rows - 1) / block_rows;
  p.blocks = groups * per_group;
  // A range is whole rounds of loads: few columns, a chunk (of 128 along K, so that 16-byte loads
  // along K stay aligned; of 32 a thread a row); few rows, 8 warps x the rows of B a warp has in
  // flight. A range writes its m x n partial sums and the second launch reads them back;
  // where the blocks are few, the product is bound by each block's chain of rounds, not by those
  // bytes. Of the splits that give every SM 4 blocks or more (up to 4 x that many ranges), the
  // one whose busiest SM holds the least of K: blocks spread over the SMs unevenly (576 blocks
  // on 132 SMs: 5 on some, 4.4 on average) cost the whole product the busiest SM's share.
  const int round_k = p.few_rows ? 8 * rows_in_flight(p.width) : p.by_row ? kColsChunk : kAlongKChunk;
  const long long by_k = std::min<long long>(std::max<long long>(1, k / round_k), 65535);
  const long long fewest = std::min<long long>((4LL * sms + p.blocks - 1) / p.blocks, by_k);
  const auto range_of = [&](long long ranges) {
    return ranges == 1 ? static_cast<long long>(k) : ((k + ranges - 1) / ranges + round_k - 1) / round_k * round_k;
  };
  long long best_range = 0;
  long long best_cost = -1;
  for (long long r = fewest; r <= std::min(by_k, 4 * fewest); ++r) {  // fewest <= by_k: one at least
    const long long range = range_of(r);
    const long long ranges = (k + range - 1) / range;  // rounding up the range may leave fewer
    const long long cost = (p.blocks * ranges + sms - 1) / sms * range;
    if (best_cost < 0 || cost < best_cost) best_cost = cost, best_range = range;
  }
  p.range_k = static_cast<int>(best_range);  // at most k, or a multiple of round_k below it
  p.ranges = static_cast<int>((k + best_range - 1) / best_range);
  p.load_rounds = (p.range_k + round_k - 1) / round_k;
  return p;
}

// The ranges' partial sums, ranges x m x n floats; none for K whole.
std::size_t partial_bytes(const SkinnyPlan& p, const GemmArgs& g) {
  return p.ranges == 1 ? 0 : sizeof(float) * static_cast<std::size_t>(p.ranges) * g.m * g.n;
}

}  // namespace

SkinnyPlan plan_skinny(int m, int n, int k, int sms) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("gemm: m, n and k must be at least 1");
  static smemlab::detail::Memo<std::tuple<int, int, int, int>, SkinnyPlan> plans;
  return plans.get(std::tuple{m, n, k, sms}, [&] { return compute_plan(m, n, k, sms); });
}

std::size_t skinny_workspace_bytes(const GemmArgs& g) {
  return partial_bytes(plan_skinny(g.m, g.n, g.k, smemlab::detail::sm_count()), g);
}

void launch_skinny(const GemmArgs& g, const LaunchContext& ctx) {
  smemlab::detail::require_row_major(g.transpose_a, g.transpose_b, "the skinny kernel");
  const SkinnyPlan p = plan_skinny(g.m, g.n, g.k, smemlab::detail::sm_count());
  const WorkspaceLayout layout{0, partial_bytes(p, g)};
  const WorkspaceScope workspace(g, layout, ctx.stream);  // checked, or allocated, before any launch
  float* partials = p.ranges == 1 ? nullptr : reinterpret_cast<float*>(workspace.base());
  const dim3 grid(smemlab::detail::grid_1d(p.blocks, "gemm: too many blocks for the skinny kernel"), p.ranges);
  const bool vector = p.few_rows ? rows_are_16b_aligned(g.b, g.ldb) : rows_are_16b_aligned(g.a, g.lda);
  const KernelFn kernel = vector ? kernel_for<true>(p.few_rows, p.width) : kernel_for<false>(p.few_rows, p.width);
  if (p.by_row) {
    kernel<<<grid, kColsThreads, cols_smem_bytes(p.width), ctx.stream>>>(g, p.range_k, partials);
  } else {
    kernel<<<grid, kThreads, 0, ctx.stream>>>(g, p.range_k, partials);
  }
  SMEMLAB_LAUNCH_CHECK();
  if (partials == nullptr) return;
  const std::size_t elements = static_cast<std::size_t>(g.m) * g.n;
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((elements + kThreads - 1) / kThreads, 4096));
  sum_ranges_kernel<<<blocks, kThreads, 0, ctx.stream>>>(g, p.ranges, partials);
  SMEMLAB_LAUNCH_CHECK();
}

GemmVariant skinny_variant() {
  return {{.family = "matmul",
           .name = "skinny",
           .description = "few rows or few columns: the large operand streamed once (through registers, or for 3 "
                          "to 16 columns through shared memory, a thread a row of C), K in ranges",
           .technique = "a memory-bound product: no tiles of C, the thin side in shared memory, partial sums of K's "
                        "ranges added in order",
           .smem = SmemKind::dynamic_alloc,
           .why_no_model = "its shared memory holds the thin side (a broadcast, or conflict-free 16-byte reads) and, "
                           "for 3 to 16 columns, chunks of A's rows read once each; its time is the large operand's "
                           "DRAM read"},
          {.run = launch_skinny, .workspace_bytes = skinny_workspace_bytes}};
}

}  // namespace smemlab::matmul::detail
