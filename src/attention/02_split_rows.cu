// 02 — warps split Q's rows (FlashAttention-2's work split). Changed from 01: each of the four
// warps owns 16 of the block's 64 query rows and all of a tile's keys, so a row's scores, its
// probabilities and its share of O never leave the warp's registers: the accumulator layout of
// S = Q K^T is the operand layout P V needs, the row maxima are four-lane shuffles, each lane
// keeps its own part of a row's sum until the end, and O is divided by the sum once, at the end.
// Tiles past the causal diagonal are skipped, and only the tiles that cross the diagonal or the
// end of K are masked. Rows in shared memory are padded by 16 bytes, as in 01. Should buy: no
// scores in shared memory and two barriers a tile instead of four; the causal case does about
// half the work. Left for the next step: every warp now reads all of K and V, one 4-byte read a
// fragment register (two 2-byte reads for V's), and the loads wait for global memory.
#include "attention/attention_device.cuh"
#include "attention/models.hpp"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

constexpr int kRows = 64;      // Q rows a block, 16 a warp
constexpr int kKeys = 64;      // keys a K/V tile
constexpr int kThreads = 128;  // four warps

// Elements a shared row takes: 16 bytes of padding shift each row by four banks, so the eight
// rows a warp's fragment reads start in eight different banks.
template <int D>
constexpr int kPitch = D + 8;

template <int D>
constexpr int smem_bytes(int element_bytes) {
  return (kRows + 2 * kKeys) * kPitch<D> * element_bytes;
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads) split_rows_kernel(Problem<T> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* const q_tile = reinterpret_cast<T*>(smem);
  constexpr int P = kPitch<D>;
  T* const k_tile = q_tile + kRows * P;
  T* const v_tile = k_tile + kKeys * P;

  const BlockRows at = block_rows(p);
  const int first_row = at.tile * kRows;
  const auto [q, k, v] = head_inputs(p, at);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  WarpRows<kKeys, D> rows{.top = first_row + 16 * warp + g, .t = t};
  const KeyRange keys = key_range(p, first_row, kRows);

  load_tile<T, kRows, D, P, kThreads>(q_tile, q, p.qs.seq, first_row, p.q_len);
  float acc[D / 8][4] = {};
  for (int key0 = 0; key0 < keys.end; key0 += kKeys) {
    __syncthreads();  // every warp is done with the previous K and V
    load_tile<T, kKeys, D, P, kThreads>(k_tile, k, p.ks.seq, key0, p.kv_len);
    load_tile<T, kKeys, D, P, kThreads>(v_tile, v, p.vs.seq, key0, p.kv_len);
    __syncthreads();

    float s[kKeys / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < D; kk += 16) {
      const T* q_row = q_tile + (16 * warp + g) * P + kk + 2 * t;
      const std::uint32_t a[4] = {word(q_row), word(q_row + 8 * P), word(q_row + 8), word(q_row + 8 * P + 8)};
#pragma unroll
      for (int nt = 0; nt < kKeys / 8; ++nt) {
        const T* key_row = k_tile + (8 * nt + g) * P + kk + 2 * t;
        mma16816<T>(s[nt], a, word(key_row), word(key_row + 8));
      }
    }
    if (key0 + kKeys > keys.unmasked_end) rows.mask(s, p, key0);
    rows.update(s, acc, p.scale_log2);
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) {
      std::uint32_t a[4];
      p_fragment<T, kKeys>(a, s, kk);
#pragma unroll
      for (int nt = 0; nt < D / 8; ++nt) {
        const T* col = v_tile + (16 * kk + 2 * t) * P + 8 * nt + g;
        mma16816<T>(acc[nt], a, pack_rows(col, P), pack_rows(col + 8 * P, P));
      }
    }
  }
  rows.store(p, at, acc);
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(a, [&]<class T, int D>() {
    launch_fused<T>(split_rows_kernel<T, D>, a, kRows, kThreads, smem_bytes<D>(sizeof(T)), ctx.stream);
  });
}

}  // namespace

AttentionVariant split_rows_variant() {
  return {{.family = "attention",
           .name = "split_rows",
           .description = "each warp owns 16 Q rows: S, P and O in registers; causal tiles skipped",
           .technique = "FlashAttention-2's work split: no scores in shared memory, one division at the end",
           .smem = SmemKind::dynamic_alloc,
           .model = models::split_rows},
          {no_workspace, launch}};
}

}  // namespace smemlab::attention::detail
