// 03 — ldmatrix, swizzled tiles, a cp.async pipeline and 32 rows a warp. Changed from 02: the
// shared tiles of Q, K and V are dense, with chunk c of row r stored at chunk c XOR (r % 8), so
// the eight rows one ldmatrix phase reads lie in eight different 16-byte bank groups without
// 02's padding. ldmatrix loads Q's and K's fragments four 8 x 8 matrices at a time, and
// ldmatrix.trans loads V's fragments transposed, where 02 assembled each register from one
// 4-byte or two 2-byte reads. Each warp owns 32 query rows (two fragments of 16; 16 at head dim
// 256, where the accumulators would not fit), so each fragment of K and V read from shared memory
// serves twice the rows: a Q tile is 128 rows. K and V come in by cp.async into two stages: the
// next tile's copies are in flight while this one is computed, behind one barrier a tile.
// Should buy: a quarter of the load instructions for Q's and K's fragments and an eighth for
// V's (ldmatrix.x4 fills four registers; 02 took one 4-byte read a register, two for V), and
// half of those again from the rows a warp: at head dim 128 about 2.6x fewer shared-memory
// wavefronts a multiply-add; global loads hidden behind the tensor cores. The kernel should be
// bound by the tensor cores and the softmax's exponentials instead of shared memory.
#include "attention/attention_device.cuh"
#include "attention/models.hpp"
#include "attention/variants.hpp"

namespace smemlab::attention::detail {
namespace {

using smemlab::detail::cp_async_commit;
using smemlab::detail::cp_async_wait;

constexpr int kThreads = 128;  // four warps

// Fragments of 16 rows a warp: two, so that each K and V fragment serves 32 rows; one at head
// dim 256, where two would need 256 accumulators a thread.
template <int D>
constexpr int kFragments = D == 256 ? 1 : 2;
template <int D>
constexpr int kRows = 4 * 16 * kFragments<D>;  // Q rows a block
// Keys a K/V tile.
template <int D>
constexpr int kKeys = 64;

template <int D>
constexpr int tile_bytes(int rows) {
  return rows * D * 2;
}
template <int D>
constexpr int smem_bytes() {
  return tile_bytes<D>(kRows<D>) + 2 * 2 * tile_bytes<D>(kKeys<D>);  // Q, then two stages of K and V
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads) swizzled_pipeline_kernel(Problem<T> p) {
  constexpr int F = kFragments<D>;
  extern __shared__ __align__(1024) unsigned char smem[];  // a tile's rows start on D * 2 bytes
  unsigned char* const q_tile = smem;
  const auto k_tile = [&](int stage) {
    return smem + tile_bytes<D>(kRows<D>) + stage * 2 * tile_bytes<D>(kKeys<D>);
  };
  const auto v_tile = [&](int stage) { return k_tile(stage) + tile_bytes<D>(kKeys<D>); };

  const BlockRows at = block_rows(p);
  const int first_row = at.tile * kRows<D>;
  const auto [q, k, v] = head_inputs(p, at);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  // Fragment f of this warp: rows 16 (F warp + f) to 16 (F warp + f) + 15 of the tile.
  WarpRows<kKeys<D>, D> rows[F];
#pragma unroll
  for (int f = 0; f < F; ++f) rows[f] = {.top = first_row + 16 * (F * warp + f) + lane / 4, .t = lane % 4};
  const KeyRange keys = key_range(p, first_row, kRows<D>);
  const int tiles = (keys.end + kKeys<D> - 1) / kKeys<D>;
  // ldmatrix: lane l gives a row address of matrix l / 8.
  const int matrix = lane / 8;
  const int matrix_row = lane % 8;
  // A lane's address of chunk 2 j + h (h = 0 or 1) of a tile row r: swizzled<D>(r, 2 j + h), which
  // is the row's start plus ((h ^ (r % 8)) ^ 2 j) x 16, since 2 j + h = 2 j ^ h. Rows start on
  // multiples of D x 2 bytes, so the XOR with 2 j x 16 = j << 5 can be made on the whole address:
  // one instruction for each step j, from one base a lane keeps, instead of an address a
  // fragment that the compiler would keep in registers across the tiles.
  const auto lane_base = [&](const unsigned char* tile, int row, int half) {
    return static_cast<unsigned>(__cvta_generic_to_shared(tile)) + row * D * 2 + ((half ^ (row & 7)) << 4);
  };
  unsigned q_base[F];
#pragma unroll
  for (int f = 0; f < F; ++f) q_base[f] = lane_base(q_tile, 16 * (F * warp + f) + 8 * (matrix % 2) + matrix_row, matrix / 2);

  copy_tile<T, kRows<D>, D, kThreads>(q_tile, q, p.qs.seq, first_row, p.q_len);
  const auto copy_keys = [&](int tile, int stage) {
    copy_tile<T, kKeys<D>, D, kThreads>(k_tile(stage), k, p.ks.seq, tile * kKeys<D>, p.kv_len);
    copy_tile<T, kKeys<D>, D, kThreads>(v_tile(stage), v, p.vs.seq, tile * kKeys<D>, p.kv_len);
  };
  if (tiles > 0) copy_keys(0, 0);
  cp_async_commit();

  float acc[F][D / 8][4] = {};
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile % 2;
    cp_async_wait<0>();  // this thread's copies of the tile have landed ...
    __syncthreads();     // ... and everyone's; everyone is done with the other stage
    if (tile + 1 < tiles) copy_keys(tile + 1, 1 - stage);
    cp_async_commit();

    float s[F][kKeys<D> / 8][4] = {};
    const unsigned k_base = lane_base(k_tile(stage), 8 * (matrix / 2) + matrix_row, matrix % 2);
    const unsigned v_base = lane_base(v_tile(stage), 8 * (matrix % 2) + matrix_row, matrix / 2);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      // Q's A fragments: matrices (rows 0-7 | 8-15) x (k 0-7 | 8-15), rows first.
      std::uint32_t a[F][4];
#pragma unroll
      for (int f = 0; f < F; ++f) ldmatrix_x4(a[f], q_base[f] ^ (kk << 5));
#pragma unroll
      for (int np = 0; np < kKeys<D> / 16; ++np) {  // two tiles of 8 keys: (keys 0-7 | 8-15) x (k 0-7 | 8-15)
        std::uint32_t b[4];
        ldmatrix_x4(b, (k_base ^ (kk << 5)) + 16 * np * D * 2);
#pragma unroll
        for (int f = 0; f < F; ++f) {
          mma16816<T>(s[f][2 * np], a[f], b[0], b[1]);
          mma16816<T>(s[f][2 * np + 1], a[f], b[2], b[3]);
        }
      }
    }
    const bool masked = (tile + 1) * kKeys<D> > keys.unmasked_end;
#pragma unroll
    for (int f = 0; f < F; ++f) {
      if (masked) rows[f].mask(s[f], p, tile * kKeys<D>);
      rows[f].update(s[f], acc[f], p.scale_log2);
    }
#pragma unroll
    for (int kk = 0; kk < kKeys<D> / 16; ++kk) {
      std::uint32_t a[F][4];
#pragma unroll
      for (int f = 0; f < F; ++f) p_fragment<T, kKeys<D>>(a[f], s[f], kk);
#pragma unroll
      for (int np = 0; np < D / 16; ++np) {  // V transposed: (keys 0-7 | 8-15) x (dims 0-7 | 8-15)
        std::uint32_t b[4];
        ldmatrix_x4_trans(b, (v_base ^ (np << 5)) + 16 * kk * D * 2);
#pragma unroll
        for (int f = 0; f < F; ++f) {
          mma16816<T>(acc[f][2 * np], a[f], b[0], b[1]);
          mma16816<T>(acc[f][2 * np + 1], a[f], b[2], b[3]);
        }
      }
    }
  }
  cp_async_wait<0>();  // no copy outlives the block (Q's, where no tile was needed)
#pragma unroll
  for (int f = 0; f < F; ++f) rows[f].store(p, at, acc[f]);
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_type_and_head_dim(a, [&]<class T, int D>() {
    launch_fused<T>(swizzled_pipeline_kernel<T, D>, a, kRows<D>, kThreads, smem_bytes<D>(), ctx.stream);
  });
}

}  // namespace

AttentionVariant swizzled_pipeline_variant() {
  return {{.family = "attention",
           .name = "swizzled_pipeline",
           .description =
               "02 with swizzled tiles, ldmatrix(.trans) fragments, 32 rows a warp, K/V copies in flight",
           .technique = "conflict-free shared tiles and a two-stage cp.async pipeline",
           .smem = SmemKind::dynamic_alloc,
           .model = models::swizzled_pipeline},
          {no_workspace, launch}};
}

}  // namespace smemlab::attention::detail
