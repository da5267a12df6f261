// 06 — split-KV over the packed rows of a head group, for decoding. Changed from 03 (whose
// swizzled tiles, ldmatrix fragments and cp.async ring it keeps, three stages deep, two at head
// dim 256): a block no longer owns one head's Q tile and all of its keys. First, the query rows
// of the q heads that share a kv head are packed into one tile (position i of head g of the
// group is packed row i * group + g), so each K and V tile is read once for the whole group
// instead of once a head.
// Second, the keys are cut into ranges, one block a range: each block writes its rows' output
// and log-sum-exp over its range to the workspace, and a second kernel merges the ranges,
// weighting each by its log-sum-exp, in a fixed order. Within a block the four warps split a
// tile's keys when the packed rows are 16 or fewer and merge through shared memory at the end;
// with more rows they split the rows, as 02 does. The host picks the number of ranges from a
// model: whole waves of blocks over the SMs against the tiles each block streams.
// Should buy: a decoding step (1 to 16 query tokens over a long kv cache) has only batch x
// kv_heads row tiles, 8 blocks for one sequence of a 32/8-head model on 132 SMs; split into
// ranges, every SM streams K and V, and the read runs near the DRAM's rate. Packing the group
// reads K and V once instead of four times at 32/8 heads.
#include <algorithm>

#include "attention/attention_device.cuh"
#include "attention/models.hpp"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

using smemlab::detail::cp_async_wait;
using smemlab::detail::pipelined_steps;

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kTileKeys = 64;  // keys a K/V tile
// K/V tiles in the ring: two in flight while one is computed; at head dim 256 one, so that a
// block fits the 163 KiB of an sm_80 GPU.
template <int D>
constexpr int kStages = D == 256 ? 2 : 3;

template <int D>
constexpr int kTileBytes = kTileKeys* D * 2;

// Shared memory: Q's packed rows, then the stages of K and V. After the last tile the stages
// hold each warp's partial output (float) and the rows' maxima and sums, for the merge.
// A partial row is padded by 8 floats: the eight rows a warp's 8-byte stores reach then start
// 8 banks apart, where unpadded rows (a multiple of 32 words) would share their banks 8 ways.
template <int D>
constexpr int kPartialPitch = D + 8;
template <int D, int RowWarps>
constexpr int smem_bytes() {
  return 16 * RowWarps * D * 2 + kStages<D> * 2 * kTileBytes<D>;
}

// How a call is cut: warps a row tile splits its rows over (1, 2 or 4; the others split the
// keys), row tiles of a (batch, kv head), key ranges, and keys a range (a multiple of a tile).
struct Plan {
  int row_warps;
  int row_tiles;
  int splits;
  int split_keys;
};

template <class T>
struct SplitProblem {
  Problem<T> p;
  Plan plan;
  int kv_heads;
  long long rows;      // batch x q_heads x q_len: O's rows
  float* partial_o;    // [splits][rows][head_dim], each range's output (divided by its sum)
  float* partial_lse;  // [splits][rows], each range's log-sum-exp in log2 units
};

template <class T, int D, int RowWarps>
__global__ void __launch_bounds__(kThreads) split_kv_kernel(SplitProblem<T> sp) {
  constexpr int kSlices = kWarps / RowWarps;      // warps that share a row tile's keys
  constexpr int kWarpKeys = kTileKeys / kSlices;  // keys of each tile a warp takes
  constexpr int kRows = 16 * RowWarps;            // packed rows a block
  const Problem<T>& p = sp.p;
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned char* const q_tile = smem;
  unsigned char* const ring = smem + kRows * D * 2;
  const auto k_tile = [&](int stage) { return ring + stage * 2 * kTileBytes<D>; };
  const auto v_tile = [&](int stage) { return k_tile(stage) + kTileBytes<D>; };

  // The row tile is the fastest index, so the blocks that read the same keys run together.
  long long flat = blockIdx.x;
  const auto row_tile = static_cast<int>(flat % sp.plan.row_tiles);
  flat /= sp.plan.row_tiles;
  const auto split = static_cast<int>(flat % sp.plan.splits);
  flat /= sp.plan.splits;
  const auto kv_head = static_cast<int>(flat % sp.kv_heads);
  const auto batch = static_cast<int>(flat / sp.kv_heads);

  const int packed_rows = p.group * p.q_len;
  const int first = row_tile * kRows;  // the block's first packed row
  const int first_position = first / p.group;
  const int last_position = (min(first + kRows, packed_rows) - 1) / p.group;
  const int key_begin = split * sp.plan.split_keys;
  // Keys past the range, past K or past the last row's causal limit are not read; tiles that
  // reach past the first row's limit or K's end are masked.
  const int key_end =
      min(min(p.kv_len, key_begin + sp.plan.split_keys), max(0, last_position + p.causal_shift + 1));
  const int unmasked_end = min(p.kv_len, max(0, first_position + p.causal_shift + 1));
  const int tiles = key_end > key_begin ? (key_end - key_begin + kTileKeys - 1) / kTileKeys : 0;

  const T* const k = p.k + batch * p.ks.batch + kv_head * p.ks.head;
  const T* const v = p.v + batch * p.vs.batch + kv_head * p.vs.head;
  const auto head_of = [&](int packed) { return kv_head * p.group + packed % p.group; };
  copy_rows<kRows, D, kThreads>(q_tile, p.q, [&](int r) -> const T* {
    const int packed = first + r;
    if (packed >= packed_rows) return nullptr;
    return p.q + batch * p.qs.batch + head_of(packed) * p.qs.head + (packed / p.group) * p.qs.seq;
  });

  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int row_warp = warp % RowWarps;  // this warp's 16 rows of the tile
  const int slice = warp / RowWarps;     // and its share of each tile's keys
  const int matrix = lane / 8;           // ldmatrix: lane l gives a row address of matrix l / 8
  const int matrix_row = lane % 8;
  WarpRows<kWarpKeys, D> rows{.top = first + 16 * row_warp + lane / 4, .t = lane % 4};
  const int position_top = rows.top / p.group;
  const int position_bottom = (rows.top + 8) / p.group;

  float acc[D / 8][4] = {};
  int tile = 0;
  pipelined_steps<kStages<D>>(
      tiles,
      [&](int step, int stage) {
        const int key0 = key_begin + step * kTileKeys;
        copy_tile<T, kTileKeys, D, kThreads>(k_tile(stage), k, p.ks.seq, key0, key_end);
        copy_tile<T, kTileKeys, D, kThreads>(v_tile(stage), v, p.vs.seq, key0, key_end);
      },
      [&](int stage) {
        const int key0 = key_begin + tile * kTileKeys;
        ++tile;
        float s[kWarpKeys / 8][4] = {};
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
          std::uint32_t a[4];
          ldmatrix_x4(
              a, q_tile + swizzled<D>(16 * row_warp + 8 * (matrix % 2) + matrix_row, 2 * kk + matrix / 2));
#pragma unroll
          for (int np = 0; np < kWarpKeys / 16; ++np) {
            std::uint32_t b[4];
            ldmatrix_x4(
                b, k_tile(stage) + swizzled<D>(slice * kWarpKeys + 16 * np + 8 * (matrix / 2) + matrix_row,
                                               2 * kk + matrix % 2));
            mma16816<T>(s[2 * np], a, b[0], b[1]);
            mma16816<T>(s[2 * np + 1], a, b[2], b[3]);
          }
        }
        if (key0 + kTileKeys > unmasked_end) {
      // Packed rows: the fragment's two rows are positions position_top and position_bottom.
#pragma unroll
          for (int nt = 0; nt < kWarpKeys / 8; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int key = key0 + slice * kWarpKeys + 8 * nt + 2 * rows.t + e % 2;
              const int position = e < 2 ? position_top : position_bottom;
              if (key >= key_end || key > position + p.causal_shift) s[nt][e] = -INFINITY;
            }
        }
        rows.update(s, acc, p.scale_log2);
#pragma unroll
        for (int kk = 0; kk < kWarpKeys / 16; ++kk) {
          std::uint32_t a[4];
          p_fragment<T, kWarpKeys>(a, s, kk);
#pragma unroll
          for (int np = 0; np < D / 16; ++np) {
            std::uint32_t b[4];
            ldmatrix_x4_trans(
                b, v_tile(stage) + swizzled<D>(slice * kWarpKeys + 16 * kk + 8 * (matrix % 2) + matrix_row,
                                               2 * np + matrix / 2));
            mma16816<T>(acc[2 * np], a, b[0], b[1]);
            mma16816<T>(acc[2 * np + 1], a, b[2], b[3]);
          }
        }
      });
  cp_async_wait<0>();  // Q's copy too, where there was no tile
  __syncthreads();     // the ring is free for the merge

  // The merge of the warps that shared the keys, in shared memory: each warp's output scaled to
  // the row's maximum over the warps, then summed in the order of the warps.
  auto* const partial = reinterpret_cast<float*>(ring);               // [warp][16][kPartialPitch]
  float* const slice_max = partial + kWarps * 16 * kPartialPitch<D>;  // [slice][kRows]
  float* const slice_sum = slice_max + kSlices * kRows;
  float* const row_max = slice_sum + kSlices * kRows;  // [kRows], merged
  float* const row_sum = row_max + kRows;
#pragma unroll
  for (int lanes = 1; lanes < 4; lanes *= 2) {
    rows.sum_top += __shfl_xor_sync(0xFFFFFFFF, rows.sum_top, lanes);
    rows.sum_bottom += __shfl_xor_sync(0xFFFFFFFF, rows.sum_bottom, lanes);
  }
  const int row_top = 16 * row_warp + lane / 4;  // in the tile
  if (rows.t == 0) {
    slice_max[slice * kRows + row_top] = rows.max_top;
    slice_max[slice * kRows + row_top + 8] = rows.max_bottom;
    slice_sum[slice * kRows + row_top] = rows.sum_top;
    slice_sum[slice * kRows + row_top + 8] = rows.sum_bottom;
  }
  __syncthreads();
  const auto merged = [&](int row, float own_max) {
    float m = -INFINITY;
    for (int s = 0; s < kSlices; ++s) m = fmaxf(m, slice_max[s * kRows + row]);
    const float base = m == -INFINITY ? 0.0F : m;
    if (slice == 0 && rows.t == 0) {
      float sum = 0.0F;
      for (int s = 0; s < kSlices; ++s)
        sum += slice_sum[s * kRows + row] * fast_exp2(slice_max[s * kRows + row] - base);
      row_max[row] = m;
      row_sum[row] = sum;
    }
    return fast_exp2(own_max - base);
  };
  const float scale_top = merged(row_top, rows.max_top);
  const float scale_bottom = merged(row_top + 8, rows.max_bottom);
  float* const mine = partial + warp * 16 * kPartialPitch<D>;
#pragma unroll
  for (int nt = 0; nt < D / 8; ++nt) {
    float* const top = mine + (lane / 4) * kPartialPitch<D> + 8 * nt + 2 * rows.t;
    *reinterpret_cast<float2*>(top) = make_float2(acc[nt][0] * scale_top, acc[nt][1] * scale_top);
    *reinterpret_cast<float2*>(top + 8 * kPartialPitch<D>) =
        make_float2(acc[nt][2] * scale_bottom, acc[nt][3] * scale_bottom);
  }
  __syncthreads();

  // Four columns a thread, so that eight lanes read 128 contiguous bytes: the sum over the
  // slices, divided by the row's sum; to O with the row's log-sum-exp when the keys are not
  // split, otherwise to the range's partial result.
  T* const o = p.o + batch * p.os.batch;
  for (int c = static_cast<int>(threadIdx.x); c < kRows * D / 4; c += kThreads) {
    const int row = c / (D / 4);
    const int col = (c % (D / 4)) * 4;
    const int packed = first + row;
    if (packed >= packed_rows) continue;
    const int head = head_of(packed);
    const int position = packed / p.group;
    const float sum = row_sum[row];
    const float inverse = sum > 0.0F ? 1.0F / sum : 0.0F;  // a row that saw no key is 0
    float4 value = make_float4(0.0F, 0.0F, 0.0F, 0.0F);
    for (int s = 0; s < kSlices; ++s) {
      const float4 part = *reinterpret_cast<const float4*>(
          partial + ((s * RowWarps + row / 16) * 16 + row % 16) * kPartialPitch<D> + col);
      value = make_float4(value.x + part.x, value.y + part.y, value.z + part.z, value.w + part.w);
    }
    value = make_float4(value.x * inverse, value.y * inverse, value.z * inverse, value.w * inverse);
    const long long out_row = (static_cast<long long>(batch) * p.heads + head) * p.q_len + position;
    if (sp.plan.splits == 1) {
      *reinterpret_cast<uint2*>(o + head * p.os.head + position * p.os.seq + col) =
          make_uint2(pack2<T>(value.x, value.y), pack2<T>(value.z, value.w));
      if (p.lse != nullptr && col == 0) p.lse[out_row] = row_lse(row_max[row], sum);
    } else {
      *reinterpret_cast<float4*>(sp.partial_o + (split * sp.rows + out_row) * D + col) = value;
      if (col == 0)
        sp.partial_lse[split * sp.rows + out_row] = sum > 0.0F ? row_max[row] + log2f(sum) : -INFINITY;
    }
  }
}

// The merge of the key ranges: one warp a row of O, D / 32 columns a lane. Range s weighs
// 2^(lse_s - max lse): its sum of exponentials against the largest; a range that saw no key
// weighs nothing (its partial output is never read).
template <class T, int D>
__global__ void __launch_bounds__(kThreads) merge_ranges_kernel(SplitProblem<T> sp) {
  constexpr int kColumns = D / 32;
  const long long row = static_cast<long long>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= sp.rows) return;
  const int col = static_cast<int>(threadIdx.x % 32) * kColumns;
  float peak = -INFINITY;
  for (int s = 0; s < sp.plan.splits; ++s) peak = fmaxf(peak, sp.partial_lse[s * sp.rows + row]);
  float value[kColumns] = {};
  float weights = 0.0F;
  if (peak != -INFINITY) {
    for (int s = 0; s < sp.plan.splits; ++s) {
      const float lse = sp.partial_lse[s * sp.rows + row];
      if (lse == -INFINITY) continue;
      const float w = fast_exp2(lse - peak);
      weights += w;
      const float* const from = sp.partial_o + (s * sp.rows + row) * D + col;
#pragma unroll
      for (int e = 0; e < kColumns; ++e) value[e] += w * from[e];
    }
  }
  const Problem<T>& p = sp.p;
  const auto position = static_cast<int>(row % p.q_len);
  const auto head = static_cast<int>(row / p.q_len % p.heads);
  const auto batch = static_cast<int>(row / p.q_len / p.heads);
  T* const out = p.o + batch * p.os.batch + head * p.os.head + position * p.os.seq + col;
  const float inverse = weights > 0.0F ? 1.0F / weights : 0.0F;
#pragma unroll
  for (int e = 0; e < kColumns; e += 2)
    *reinterpret_cast<std::uint32_t*>(out + e) = pack2<T>(value[e] * inverse, value[e + 1] * inverse);
  if (p.lse != nullptr && col == 0)
    p.lse[row] = weights > 0.0F ? (peak + log2f(weights)) * 0.6931471805599453F : -INFINITY;
}

template <int D, int RowWarps>
int blocks_per_sm(const Args& a) {
  int blocks = 0;
  const auto kernel = split_kv_kernel<__nv_bfloat16, D, RowWarps>;  // the same resources for half
  allow_shared_memory(kernel, smem_bytes<D, RowWarps>(), a);
  SMEMLAB_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kThreads, smem_bytes<D, RowWarps>()));
  return std::max(blocks, 1);
}

// A block's fixed cost in tiles' time: its Q copy and the ring's fill before the first tile, the
// warps' merge and the store after the last. And the merge of the ranges, a second launch that
// reads every range's partial rows.
constexpr int kBlockOverheadTiles = 2;
constexpr int kMergeTiles = 2;

// Row warps from the packed rows a kv head has; then the number of ranges that minimises the
// time of the slowest SM, in tiles: whole waves of blocks (slots = SMs x blocks an SM holds),
// each wave as long as a block's tiles plus its overhead. Ties keep fewer ranges.
template <int D>
Plan plan_of(const Args& a) {
  const Shape& s = a.shape;
  const long long packed = static_cast<long long>(s.q_heads / s.kv_heads) * s.q_len;
  const int row_warps = packed <= 16 ? 1 : packed <= 32 ? 2 : 4;
  const auto row_tiles = static_cast<int>((packed + 16 * row_warps - 1) / (16 * row_warps));
  const long long blocks = static_cast<long long>(s.batch) * s.kv_heads * row_tiles;
  const int tiles = std::max(1, (s.kv_len + kTileKeys - 1) / kTileKeys);
  int device = 0;
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int per_sm = row_warps == 1   ? blocks_per_sm<D, 1>(a)
                     : row_warps == 2 ? blocks_per_sm<D, 2>(a)
                                      : blocks_per_sm<D, 4>(a);
  const long long slots = static_cast<long long>(sms) * per_sm;
  Plan best{row_warps, row_tiles, 1, tiles * kTileKeys};
  double best_cost = INFINITY;
  for (int splits = 1; splits <= tiles && blocks * splits <= 0x7FFFFFFF; ++splits) {
    const int tiles_per_split = (tiles + splits - 1) / splits;
    if ((tiles + tiles_per_split - 1) / tiles_per_split < splits) continue;  // the same cut as fewer
    const long long waves = (blocks * splits + slots - 1) / slots;
    const double cost =
        static_cast<double>(waves) * (tiles_per_split + kBlockOverheadTiles) + (splits > 1 ? kMergeTiles : 0);
    if (cost < best_cost) {
      best_cost = cost;
      best = {row_warps, row_tiles, splits, tiles_per_split * kTileKeys};
    }
    if (waves > 1 && splits > 1 && blocks * splits > 4 * slots) break;  // more ranges only add waves
  }
  return best;
}

template <int D>
std::size_t workspace_of(const Plan& plan, const Shape& s) {
  if (plan.splits == 1) return 0;
  const std::size_t rows = static_cast<std::size_t>(s.batch) * s.q_heads * s.q_len;
  return static_cast<std::size_t>(plan.splits) * rows * (D + 1) * sizeof(float);
}

std::size_t workspace_bytes(const Args& a) {
  std::size_t bytes = 0;
  with_type_and_head_dim(a, [&]<class T, int D>() { bytes = workspace_of<D>(plan_of<D>(a), a.shape); });
  return bytes;
}

template <class T, int D, int RowWarps>
void launch_split(const SplitProblem<T>& sp, long long blocks, const Args& a, cudaStream_t stream) {
  const auto kernel = split_kv_kernel<T, D, RowWarps>;
  allow_shared_memory(kernel, smem_bytes<D, RowWarps>(), a);
  kernel<<<static_cast<unsigned>(blocks), kThreads, smem_bytes<D, RowWarps>(), stream>>>(sp);
  SMEMLAB_CUDA_CHECK(cudaGetLastError());
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(a, [&]<class T, int D>() {
    const Plan plan = plan_of<D>(a);
    const Shape& s = a.shape;
    const long long rows = static_cast<long long>(s.batch) * s.q_heads * s.q_len;
    auto* const partial_o = static_cast<float*>(a.workspace);
    SplitProblem<T> sp{
        problem_of<T>(a, 16 * plan.row_warps),
        plan,
        s.kv_heads,
        rows,
        partial_o,
        plan.splits > 1 ? partial_o + static_cast<std::size_t>(plan.splits) * rows * D : nullptr};
    const long long blocks = static_cast<long long>(s.batch) * s.kv_heads * plan.row_tiles * plan.splits;
    if (blocks > 0x7FFFFFFF) throw std::invalid_argument("attention: more than 2^31 - 1 blocks");
    if (plan.row_warps == 1) launch_split<T, D, 1>(sp, blocks, a, ctx.stream);
    if (plan.row_warps == 2) launch_split<T, D, 2>(sp, blocks, a, ctx.stream);
    if (plan.row_warps == 4) launch_split<T, D, 4>(sp, blocks, a, ctx.stream);
    if (plan.splits > 1) {
      merge_ranges_kernel<T, D>
          <<<static_cast<unsigned>((rows + kWarps - 1) / kWarps), kThreads, 0, ctx.stream>>>(sp);
      SMEMLAB_CUDA_CHECK(cudaGetLastError());
    }
  });
}

}  // namespace

AttentionVariant split_kv_variant() {
  return {{.family = "attention",
           .name = "split_kv",
           .description =
               "a head group's rows packed into one tile; keys split over blocks, merged by log-sum-exp",
           .technique = "split-KV (flash decoding) with K and V read once a head group",
           .smem = SmemKind::dynamic_alloc,
           .model = models::split_kv},
          {workspace_bytes, launch}};
}

}  // namespace smemlab::attention::detail
