// 01 — copy: the same bytes copied, not transposed, with the access pattern of the tuned kernel
// (07) minus the shared-memory turn: 32 x 8 threads move a 32 x 32 tile of elements, four rows
// each, the next tile's loads issued before the current tile is stored. Where 07 uses 16-byte
// accesses (float, aligned, row lengths multiples of 4) the elements here are float4 as well.
// No transpose can beat it, so it is the ceiling the others are read against.
#include <cstdint>

#include "core/occupancy.hpp"
#include "smemlab/error.hpp"
#include "transpose/transpose_device.cuh"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {
namespace {

constexpr int kRowsPerThread = kTile / 8;

template <bool Checked, class T>
__device__ __forceinline__ void load_tile(const Args<T>& a, Tile t, T (&v)[kRowsPerThread]) {
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k)
    v[k] = load<Checked>(a.in, t.row0 + threadIdx.y + 8 * k, t.col0 + threadIdx.x, a.ld_in, a.rows, a.cols);
}

template <class T>
__global__ void __launch_bounds__(kTile * 8) copy_kernel(Args<T> a, long long tiles) {
  T v[kRowsPerThread];
  long long index = blockIdx.x;
  if (index >= tiles) return;
  Tile t = tile_at(a, index, kTile, kTile);
  if (t.edge) {
    load_tile<true>(a, t, v);
  } else {
    load_tile<false>(a, t, v);
  }
  while (true) {
    T current[kRowsPerThread];
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) current[k] = v[k];
    const Tile here = t;
    index += gridDim.x;
    if (index < tiles) {  // the next tile's loads go out before this tile's stores
      t = tile_at(a, index, kTile, kTile);
      if (t.edge) {
        load_tile<true>(a, t, v);
      } else {
        load_tile<false>(a, t, v);
      }
    }
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) {
      const int r = here.row0 + threadIdx.y + 8 * k;
      const int c = here.col0 + threadIdx.x;
      if (here.edge) {
        store<true>(a.out, r, c, a.cols, a.rows, a.cols, current[k]);
      } else {
        store<false>(a.out, r, c, a.cols, a.rows, a.cols, current[k]);
      }
    }
    if (index >= tiles) return;
  }
}

template <class E>
void launch_copy(const Args<E>& a, cudaStream_t stream) {
  const int resident = smemlab::detail::resident_blocks(copy_kernel<E>, kTile * 8);
  const long long tiles = tile_count(a, kTile, kTile);
  copy_kernel<<<grid_of(std::min<long long>(tiles, resident)), dim3(kTile, 8), 0, stream>>>(a, tiles);
  SMEMLAB_LAUNCH_CHECK();
}

template <class T>
struct Copy {
  static void launch(const Args<T>& a, const LaunchContext& ctx) {
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    if constexpr (sizeof(T) == 4) {
      if (aligned(a.in) && aligned(a.out) && a.cols % 4 == 0 && a.ld_in % 4 == 0) {
        // The same rows as float4 elements: a quarter of the columns, identical bytes.
        const Args<float4> wide{a.rows, a.cols / 4, reinterpret_cast<const float4*>(a.in), a.ld_in / 4,
                                reinterpret_cast<float4*>(a.out), a.ld_out};
        return launch_copy(wide, ctx.stream);
      }
    }
    launch_copy(a, ctx.stream);
  }
};

}  // namespace

TransposeVariant copy_variant() {
  return {{.family = "transpose",
           .name = "copy",
           .description = "copy, not transpose, with the tuned kernel's access pattern: the ceiling",
           .technique = "coalesced both ways, loads of the next tile in flight: the bandwidth ceiling",
           .smem = SmemKind::none},
          both_types<Copy>(true)};
}

}  // namespace smemlab::transpose::detail
