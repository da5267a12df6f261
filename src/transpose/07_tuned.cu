// 07 — tuned. Changed from 06: 32 x 8 threads per 32 x 32 tile, four rows each, so a block needs
// a quarter of the threads and each thread keeps four loads in flight; the grid is sized to fill
// the GPU once and each block walks through tiles, issuing the loads of its next tile before it
// writes the current one out of shared memory, so reads and writes overlap. The swizzled layout
// keeps both shared-memory phases conflict-free. Should buy: the gap between 06 and the copy
// ceiling, which comes from too few bytes in flight and a barrier-separated read and write phase.
#include "smemlab/error.hpp"
#include "transpose/transpose_device.cuh"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {
namespace {

constexpr int kBlockRows = 8;
constexpr int kRowsPerThread = kTile / kBlockRows;

template <bool Checked, class T>
__device__ __forceinline__ void load_tile(const Args<T>& a, Tile t, T (&v)[kRowsPerThread]) {
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k)
    v[k] = load<Checked>(a.in, t.row0 + threadIdx.y + kBlockRows * k, t.col0 + threadIdx.x, a.ld_in,
                         a.rows, a.cols);
}

template <class T>
__device__ __forceinline__ void load_any(const Args<T>& a, Tile t, T (&v)[kRowsPerThread]) {
  if (t.edge) {
    load_tile<true>(a, t, v);
  } else {
    load_tile<false>(a, t, v);
  }
}

template <bool Checked, class T>
__device__ __forceinline__ void store_tile(const Args<T>& a, Tile t, const T* tile) {
  const int tx = static_cast<int>(threadIdx.x);
#pragma unroll
  for (int k = 0; k < kRowsPerThread; ++k) {
    const int j = static_cast<int>(threadIdx.y) + kBlockRows * k;  // output row within the tile
    store<Checked>(a.out, t.col0 + j, t.row0 + tx, a.ld_out, a.cols, a.rows,
                   tile[SwizzledLayout::at(tx, j)]);
  }
}

template <class T>
__global__ void __launch_bounds__(kTile* kBlockRows) tuned_kernel(Args<T> a, long long tiles) {
  __shared__ T tile[SwizzledLayout::kWords];
  long long index = blockIdx.x;
  if (index >= tiles) return;
  T v[kRowsPerThread];
  Tile t = tile_at(a, index, kTile, kTile);
  load_any(a, t, v);
  while (true) {
#pragma unroll
    for (int k = 0; k < kRowsPerThread; ++k) {
      const int r = static_cast<int>(threadIdx.y) + kBlockRows * k;
      tile[SwizzledLayout::at(r, threadIdx.x)] = v[k];
    }
    __syncthreads();
    const Tile here = t;
    index += gridDim.x;
    if (index < tiles) {  // next tile's loads in flight while this one is written
      t = tile_at(a, index, kTile, kTile);
      load_any(a, t, v);
    }
    if (here.edge) {
      store_tile<true>(a, here, tile);
    } else {
      store_tile<false>(a, here, tile);
    }
    if (index >= tiles) return;
    __syncthreads();  // the tile is read before the next one overwrites it
  }
}

int resident_blocks() {
  int device = 0;
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms * (2048 / (kTile * kBlockRows));
}

template <class T>
struct Tuned {
  static void launch(const Args<T>& a, const LaunchContext& ctx) {
    const long long tiles = tile_count(a, kTile, kTile);
    const unsigned blocks = grid_of(std::min<long long>(tiles, resident_blocks()));
    tuned_kernel<<<blocks, dim3(kTile, kBlockRows), 0, ctx.stream>>>(a, tiles);
    SMEMLAB_LAUNCH_CHECK();
  }
};

}  // namespace

TransposeVariant tuned_variant() {
  return {{.family = "transpose",
           .name = "tuned",
           .description = "32x8 threads per swizzled tile, persistent blocks, next tile prefetched",
           .technique = "more bytes in flight: loads of the next tile overlap stores of this one",
           .smem = SmemKind::static_alloc},
          both_types<Tuned>()};
}

}  // namespace smemlab::transpose::detail
