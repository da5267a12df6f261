// 01 — fused, one block a Q tile (FlashAttention-1's idea). Changed from 00: no score matrix in
// global memory. A block keeps 64 rows of Q in shared memory and streams K and V through it 64
// keys at a time; each tile's scores go to shared memory, a softmax pass updates every row's
// running maximum and sum (the online softmax) and rescales what O has gathered so far, then
// O += P V on the tensor cores. The four warps split the keys of S = Q K^T and O's columns, so
// S and P pass through shared memory between the two products, with a barrier at each hand-over.
// Rows of Q, K and V in shared memory are padded by 16 bytes: dense rows, a multiple of 128 bytes
// long, would put the eight rows a fragment read touches in the same four banks (8-way conflicts).
// Should buy: the 12 to 16 bytes a score that 00 moves through global memory (S written and
// read as floats, P written and read) disappear, so
// long sequences stop being bound by global memory; the shared-memory round trips and barriers
// are what the next step removes.
#include "attention/attention_device.cuh"
#include "attention/models.hpp"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

constexpr int kRows = 64;               // Q rows a block
constexpr int kKeys = 64;               // keys a K/V tile
constexpr int kThreads = 128;           // four warps
constexpr int kScorePitch = kKeys + 4;  // floats a row of S in shared memory

// Elements a shared row of Q, K or V takes: 16 bytes of padding shift each row by four banks,
// so the eight rows a warp's fragment reads start in eight different banks.
template <int D>
constexpr int kPitch = D + 8;

template <int D>
constexpr int smem_bytes(int element_bytes) {
  return 3 * kRows * kPitch<D> * element_bytes + kRows * kScorePitch * 4 + 3 * kRows * 4;
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads) fused_tile_kernel(Problem<T> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* const q_tile = reinterpret_cast<T*>(smem);
  constexpr int P = kPitch<D>;
  T* const k_tile = q_tile + kRows * P;
  T* const v_tile = k_tile + kKeys * P;
  float* const scores = reinterpret_cast<float*>(v_tile + kKeys * P);
  float* const row_max = scores + kRows * kScorePitch;  // log2 units of the scaled scores
  float* const row_sum = row_max + kRows;
  float* const row_rescale = row_sum + kRows;

  const BlockRows at = block_rows(p);
  const int first_row = at.tile * kRows;
  const auto [q, k, v] = head_inputs(p, at);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4;  // the fragment's row (and B's column) of this lane
  const int t = lane % 4;  // its pair of K values

  load_tile<T, kRows, D, P, kThreads>(q_tile, q, p.qs.seq, first_row, p.q_len);
  if (threadIdx.x < kRows) {
    row_max[threadIdx.x] = -INFINITY;
    row_sum[threadIdx.x] = 0.0F;
  }
  // O's columns [warp * D / 4, (warp + 1) * D / 4) for all 64 rows: 4 x (D / 32) tiles of 16 x 8.
  constexpr int kColTiles = D / 32;
  float acc[4][kColTiles][4] = {};

  for (int key0 = 0; key0 < p.kv_len; key0 += kKeys) {
    __syncthreads();  // the previous tile's P V is done with K, V and the scores
    load_tile<T, kKeys, D, P, kThreads>(k_tile, k, p.ks.seq, key0, p.kv_len);
    load_tile<T, kKeys, D, P, kThreads>(v_tile, v, p.vs.seq, key0, p.kv_len);
    __syncthreads();

    // S for all 64 rows and keys [16 warp, 16 warp + 16): 4 x 2 tiles.
    float s[4][2][4] = {};
#pragma unroll
    for (int kk = 0; kk < D; kk += 16) {
      std::uint32_t b[2][2];
#pragma unroll
      for (int nt = 0; nt < 2; ++nt) {
        const T* key_row = k_tile + (16 * warp + 8 * nt + g) * P + kk + 2 * t;
        b[nt][0] = word(key_row);
        b[nt][1] = word(key_row + 8);
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const T* q_row = q_tile + (16 * mt + g) * P + kk + 2 * t;
        const std::uint32_t a[4] = {word(q_row), word(q_row + 8 * P), word(q_row + 8),
                                    word(q_row + 8 * P + 8)};
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) mma16816<T>(s[mt][nt], a, b[nt][0], b[nt][1]);
      }
    }
#pragma unroll
    for (int mt = 0; mt < 4; ++mt)
#pragma unroll
      for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int row = 16 * mt + g + 8 * (e / 2);
          const int key = 16 * warp + 8 * nt + 2 * t + e % 2;
          const bool seen = key0 + key < p.kv_len && key0 + key <= first_row + row + p.causal_shift;
          scores[row * kScorePitch + key] = seen ? s[mt][nt][e] * p.scale_log2 : -INFINITY;
        }
    __syncthreads();

    // The online softmax: two threads a row, 32 keys each.
    {
      const int row = static_cast<int>(threadIdx.x) / 2;
      float* const line = scores + row * kScorePitch + 32 * (threadIdx.x % 2);
      float tile_max = -INFINITY;
      for (int j = 0; j < 32; ++j) tile_max = fmaxf(tile_max, line[j]);
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xFFFFFFFF, tile_max, 1));
      const float old_max = row_max[row];
      const float new_max = fmaxf(old_max, tile_max);
      const float base = new_max == -INFINITY ? 0.0F : new_max;  // no key seen yet: every p is 0
      float sum = 0.0F;
      for (int j = 0; j < 32; ++j) {
        line[j] = exp2f(line[j] - base);
        sum += line[j];
      }
      sum += __shfl_xor_sync(0xFFFFFFFF, sum, 1);
      __syncwarp();
      if (threadIdx.x % 2 == 0) {
        const float rescale = exp2f(old_max - base);
        row_rescale[row] = rescale;
        row_sum[row] = row_sum[row] * rescale + sum;
        row_max[row] = new_max;
      }
    }
    __syncthreads();

// O = O * rescale + P V for this warp's columns.
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
      const float top = row_rescale[16 * mt + g];
      const float bottom = row_rescale[16 * mt + g + 8];
#pragma unroll
      for (int nt = 0; nt < kColTiles; ++nt) {
        acc[mt][nt][0] *= top;
        acc[mt][nt][1] *= top;
        acc[mt][nt][2] *= bottom;
        acc[mt][nt][3] *= bottom;
      }
    }
#pragma unroll
    for (int kk = 0; kk < kKeys; kk += 16) {
      std::uint32_t a[4][4];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const float* top = scores + (16 * mt + g) * kScorePitch + kk + 2 * t;
        const float* bottom = top + 8 * kScorePitch;
        a[mt][0] = pack2<T>(top[0], top[1]);
        a[mt][1] = pack2<T>(bottom[0], bottom[1]);
        a[mt][2] = pack2<T>(top[8], top[9]);
        a[mt][3] = pack2<T>(bottom[8], bottom[9]);
      }
#pragma unroll
      for (int nt = 0; nt < kColTiles; ++nt) {
        const T* col = v_tile + (kk + 2 * t) * P + warp * (D / 4) + 8 * nt + g;
        const std::uint32_t b0 = pack_rows(col, P);
        const std::uint32_t b1 = pack_rows(col + 8 * P, P);
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) mma16816<T>(acc[mt][nt], a[mt], b0, b1);
      }
    }
  }
  __syncthreads();

  T* const o = p.o + at.batch * p.os.batch + at.head * p.os.head;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt)
    for (int lower = 0; lower < 2; ++lower) {
      const int row = 16 * mt + g + 8 * lower;
      if (first_row + row >= p.q_len) continue;
      const float sum = row_sum[row];
      const float inverse = sum > 0.0F ? 1.0F / sum : 0.0F;  // a row that sees no key is 0
      T* const out = o + (first_row + row) * p.os.seq + warp * (D / 4) + 2 * t;
#pragma unroll
      for (int nt = 0; nt < kColTiles; ++nt)
        *reinterpret_cast<std::uint32_t*>(out + 8 * nt) =
            pack2<T>(acc[mt][nt][2 * lower] * inverse, acc[mt][nt][2 * lower + 1] * inverse);
    }
  if (p.lse != nullptr && threadIdx.x < kRows && first_row + static_cast<int>(threadIdx.x) < p.q_len) {
    const long long row = (static_cast<long long>(at.batch) * p.heads + at.head) * p.q_len + first_row +
                          static_cast<int>(threadIdx.x);
    p.lse[row] = row_lse(row_max[threadIdx.x], row_sum[threadIdx.x]);
  }
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(a, [&]<class T, int D>() {
    launch_fused<T>(fused_tile_kernel<T, D>, a, kRows, kThreads, smem_bytes<D>(sizeof(T)), ctx.stream);
  });
}

}  // namespace

AttentionVariant fused_tile_variant() {
  return {{.family = "attention",
           .name = "fused_tile",
           .description = "one block a Q tile; K and V tiles, S and P in shared memory; online softmax",
           .technique = "fusion: the scores never reach global memory (FlashAttention-1)",
           .smem = SmemKind::dynamic_alloc,
           .model = models::fused_tile},
          {no_workspace, launch}};
}

}  // namespace smemlab::attention::detail
