// 01 — the WMMA API (nvcuda::wmma), the tensor cores as CUDA C++ exposes them. The block
// copies a 128 x 128 tile of C's K-step into padded shared tiles (as the mma.sync steps do);
// each of its 8 warps loads 16 x 16 fragments of A and B from them with load_matrix_sync and
// multiplies with mma_sync, 32 x 64 outputs a warp. Changed from the SGEMM kernels: one
// instruction multiplies a 16 x 16 x 16 (tf32: 16 x 16 x 8) piece, and the fragment layout in
// registers is the library's, unseen. Should buy: several times the FP32 kernels' throughput,
// though WMMA's loads cannot be scheduled or swizzled by hand.
#include <mma.h>

#include "tensor_matmul/mma_gemm.cuh"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul::detail {
namespace {

namespace wmma = nvcuda::wmma;

// 128 x 128 blocks of 8 warps (4 down, 2 across), one K-step in shared memory at a time.
using WmmaConfig = MmaConfig<128, 128, 32, 64, 1, Layout::padded, false>;

// WMMA's names for an input type: the fragment element and the K of one multiply.
template <class E>
struct WmmaTypes {
  using Element = typename E::Storage;
  static constexpr int kK = 16;
};
template <>
struct WmmaTypes<Tf32> {
  using Element = wmma::precision::tf32;
  static constexpr int kK = 8;
};

template <class E, int Granule>
__global__ void __launch_bounds__(WmmaConfig::kThreads) wmma_gemm_kernel(GemmArgs g) {
  using Cfg = WmmaConfig;
  using A = ATile<Layout::padded>;
  using B = BTile<Layout::padded, E, Cfg::kBN>;
  using Storage = typename E::Storage;
  using Element = typename WmmaTypes<E>::Element;
  constexpr int kK = WmmaTypes<E>::kK;
  constexpr int kBK = kKStepBytes / kElemBytes<E>;
  constexpr int kFragsM = Cfg::kWM / 16;
  constexpr int kFragsN = Cfg::kWN / 16;
  extern __shared__ __align__(128) char smem[];
  char* a_tile = smem;
  char* b_tile = smem + Cfg::kATileBytes;
  const TileOrigin t = smemlab::detail::rastered_tile(g.m, g.n, Cfg::kBM, Cfg::kBN, 0);
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int wm0 = warp / Cfg::kWarpsN * Cfg::kWM;
  const int wn0 = warp % Cfg::kWarpsN * Cfg::kWN;

  wmma::fragment<wmma::accumulator, 16, 16, kK, float> acc[kFragsM][kFragsN];
#pragma unroll
  for (auto& row : acc)
#pragma unroll
    for (auto& f : row) wmma::fill_fragment(f, 0.0F);

  const int steps = (g.k + kBK - 1) / kBK;
  for (int step = 0; step < steps; ++step) {
    if (t.edge || (step + 1) * kBK > g.k) {
      copy_k_step<E, Cfg::kBM, Cfg::kBN, Cfg::kThreads, Layout::padded, Granule, true>(g, t, step * kBK, a_tile, b_tile);
    } else {
      copy_k_step<E, Cfg::kBM, Cfg::kBN, Cfg::kThreads, Layout::padded, Granule, false>(g, t, step * kBK, a_tile, b_tile);
    }
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; kk += kK) {
      wmma::fragment<wmma::matrix_a, 16, 16, kK, Element, wmma::row_major> a[kFragsM];
      wmma::fragment<wmma::matrix_b, 16, 16, kK, Element, wmma::row_major> b[kFragsN];
#pragma unroll
      for (int i = 0; i < kFragsM; ++i) {
        const auto* p = reinterpret_cast<const Storage*>(a_tile + (wm0 + i * 16) * A::kPitch) + kk;
        wmma::load_matrix_sync(a[i], p, A::kPitch / kElemBytes<E>);
        if constexpr (kIsTf32<E>) {
          for (int x = 0; x < a[i].num_elements; ++x) a[i].x[x] = wmma::__float_to_tf32(a[i].x[x]);
        }
      }
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) {
        const auto* p = reinterpret_cast<const Storage*>(b_tile + kk * B::kPitch) + wn0 + j * 16;
        wmma::load_matrix_sync(b[j], p, B::kPitch / kElemBytes<E>);
        if constexpr (kIsTf32<E>) {
          for (int x = 0; x < b[j].num_elements; ++x) b[j].x[x] = wmma::__float_to_tf32(b[j].x[x]);
        }
      }
#pragma unroll
      for (int i = 0; i < kFragsM; ++i)
#pragma unroll
        for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();  // the tiles are rewritten next
  }

  // The accumulator layout is opaque: each warp stores a fragment to its 16 x 16 corner of
  // shared memory, then writes it out with alpha, beta and the bounds of C.
  float* staging = reinterpret_cast<float*>(smem) + warp * 16 * 16;
  const int lane = static_cast<int>(threadIdx.x) % 32;
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) {
      wmma::store_matrix_sync(staging, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
#pragma unroll
      for (int e = lane; e < 16 * 16; e += 32) {
        const int r = t.row0 + wm0 + i * 16 + e / 16;
        const int c = t.col0 + wn0 + j * 16 + e % 16;
        store_c<true>(g, r, c, staging[e]);
      }
      __syncwarp();
    }
}

template <class E, int Granule>
void launch_wmma_with(const GemmArgs& g, cudaStream_t stream) {
  constexpr std::size_t kSmem = WmmaConfig::kSmemBytes<E>;
  static_assert(8 * 16 * 16 * sizeof(float) <= kSmem, "the epilogue's staging fits in the tiles");
  smemlab::detail::allow_dynamic_smem(wmma_gemm_kernel<E, Granule>, kSmem);
  const long long tiles = static_cast<long long>((g.m + 127) / 128) * ((g.n + 127) / 128);
  if (tiles > 0x7FFFFFFFLL) throw std::invalid_argument("gemm: C has more tiles than a grid holds");
  wmma_gemm_kernel<E, Granule><<<static_cast<unsigned>(tiles), WmmaConfig::kThreads, kSmem, stream>>>(g);
  SMEMLAB_LAUNCH_CHECK();
}

void launch_wmma(const GemmArgs& g, const LaunchContext& ctx) {
  with_input_type(g.input, [&](auto e) {
    using E = decltype(e);
    // 16-byte copies where the rows allow them, else one element at a time (tf32: one
    // 4-byte cp.async an element).
    if (operands_16b_aligned(g)) {
      launch_wmma_with<E, 16>(g, ctx.stream);
    } else {
      launch_wmma_with<E, kElemBytes<E>>(g, ctx.stream);
    }
  });
}

}  // namespace

TensorVariant wmma_variant() {
  return {{.family = "tensor-matmul",
           .name = "wmma",
           .description = "WMMA fragments (16x16) loaded from padded shared tiles, 32x64 outputs a warp",
           .technique = "tensor cores through the CUDA C++ WMMA API: one instruction per 16x16x16 piece",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .why_no_model = "WMMA's fragment loads are the compiler's: their shared-memory pattern is not "
                           "written in the source"},
          launch_wmma};
}

}  // namespace smemlab::tensor_matmul::detail
