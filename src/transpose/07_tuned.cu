// 07 — tuned. Changed from 06: more bytes in flight per thread, in one of two ways.
// Where the alignment allows (float, 16-byte aligned pointers, leading dimensions multiples of
// 4) every global access is 16 bytes wide: a block of 512 threads moves a 64 x 64 tile with
// float4 loads and stores, a warp 512 bytes per instruction, two loads in flight per thread.
// The tile goes into shared memory with 16-byte stores, its 16-byte chunks swizzled (chunk q of
// row r at q XOR (r/4 mod 16)), so the row-wise stores and the column-wise 4-byte reads are
// both conflict-free. One tile per block: the hardware overlaps one block's loads with another's
// stores (a persistent version that prefetched the next tile needed 74 registers and was 2%
// slower; docs/perf/transpose.md).
// Otherwise (double, unaligned float): 32 x 32 tiles of single elements in the swizzled layout
// of 06, 32 x 8 threads, four rows each, persistent blocks that issue the next tile's loads
// before writing the current one.
// Should buy: the gap between 06 and the copy ceiling, which comes from too few bytes in flight
// and 4-byte accesses.
// Both paths number their tiles down the input's columns (tile_down_columns), so the blocks
// running together write neighbouring output rows. That was found after the rest was measured:
// +3-4% for float at 8192^2 and 16384^2 (docs/perf/transpose.md).
#include <cstdint>

#include "core/occupancy.hpp"
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
  Tile t = tile_down_columns(a, index, kTile, kTile);
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
      t = tile_down_columns(a, index, kTile, kTile);
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

// ---- 16-byte path: float, 64 x 64 tiles, 256 threads ----
constexpr int kVecTile = 64;
constexpr int kChunks = kVecTile / 4;  // float4 chunks per tile row
constexpr int kVecThreads = 512;  // 2 chunks each; 256 threads with 4 were 1% slower
constexpr int kChunksPerThread = kVecTile * kChunks / kVecThreads;

// Word offset of chunk q (4 floats) of tile row r.
__device__ __forceinline__ int chunk_slot(int r, int q) {
  return r * kVecTile + 4 * (q ^ ((r >> 2) & (kChunks - 1)));
}

// Chunk p of this thread in the load phase: tile row and chunk index (a warp covers two rows).
__device__ __forceinline__ void load_position(int p, int& r, int& q) {
  const int id = p * kVecThreads + static_cast<int>(threadIdx.x);
  r = id / kChunks;
  q = id % kChunks;
}

// Chunk p in the store phase: output row j (input column) and output chunk i4 (input rows
// 4*i4 .. 4*i4+3). A warp takes 4 consecutive j and 8 consecutive i4: conflict-free reads.
__device__ __forceinline__ void store_position(int p, int& j, int& i4) {
  constexpr int kWarpsPerRowGroup = kChunks / 8;
  const int id = p * kVecThreads + static_cast<int>(threadIdx.x);
  const int lane = id % 32;
  const int warp_chunk = id / 32;
  j = 4 * (warp_chunk / kWarpsPerRowGroup) + lane / 8;
  i4 = 8 * (warp_chunk % kWarpsPerRowGroup) + lane % 8;
}

__device__ __forceinline__ void load_vec_tile(const Args<float>& a, Tile t, float4 (&v)[kChunksPerThread]) {
#pragma unroll
  for (int p = 0; p < kChunksPerThread; ++p) {
    int r = 0;
    int q = 0;
    load_position(p, r, q);
    const int row = t.row0 + r;
    const int col = t.col0 + 4 * q;
    if (!t.edge) {
      v[p] = *reinterpret_cast<const float4*>(a.in + static_cast<std::size_t>(row) * a.ld_in + col);
    } else {
      v[p] = make_float4(load<true>(a.in, row, col, a.ld_in, a.rows, a.cols),
                         load<true>(a.in, row, col + 1, a.ld_in, a.rows, a.cols),
                         load<true>(a.in, row, col + 2, a.ld_in, a.rows, a.cols),
                         load<true>(a.in, row, col + 3, a.ld_in, a.rows, a.cols));
    }
  }
}

__device__ __forceinline__ void store_vec_tile(const Args<float>& a, Tile t, const float* tile) {
#pragma unroll
  for (int p = 0; p < kChunksPerThread; ++p) {
    int j = 0;
    int i4 = 0;
    store_position(p, j, i4);
    const int slot = chunk_slot(4 * i4, j / 4) + j % 4;  // rows 4*i4+k share the swizzle
    const float4 v = make_float4(tile[slot], tile[slot + kVecTile], tile[slot + 2 * kVecTile],
                                 tile[slot + 3 * kVecTile]);
    const int row = t.col0 + j;      // output row = input column
    const int col = t.row0 + 4 * i4;  // output column = input row
    if (!t.edge) {
      *reinterpret_cast<float4*>(a.out + static_cast<std::size_t>(row) * a.ld_out + col) = v;
    } else {
      store<true>(a.out, row, col, a.ld_out, a.cols, a.rows, v.x);
      store<true>(a.out, row, col + 1, a.ld_out, a.cols, a.rows, v.y);
      store<true>(a.out, row, col + 2, a.ld_out, a.cols, a.rows, v.z);
      store<true>(a.out, row, col + 3, a.ld_out, a.cols, a.rows, v.w);
    }
  }
}

__global__ void __launch_bounds__(kVecThreads) tuned_vec_kernel(Args<float> a) {
  __shared__ __align__(16) float tile[kVecTile * kVecTile];
  const Tile t = tile_down_columns(a, blockIdx.x, kVecTile, kVecTile);
  float4 v[kChunksPerThread];
  load_vec_tile(a, t, v);
#pragma unroll
  for (int p = 0; p < kChunksPerThread; ++p) {
    int r = 0;
    int q = 0;
    load_position(p, r, q);
    *reinterpret_cast<float4*>(tile + chunk_slot(r, q)) = v[p];
  }
  __syncthreads();
  store_vec_tile(a, t, tile);
}

template <class T>
bool vector_ready(const Args<T>& a) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return sizeof(T) == 4 && aligned(a.in) && aligned(a.out) && a.ld_in % 4 == 0 && a.ld_out % 4 == 0;
}

template <class T>
struct Tuned {
  static void launch(const Args<T>& a, const LaunchContext& ctx) {
    if constexpr (sizeof(T) == 4) {
      if (vector_ready(a)) {
        tuned_vec_kernel<<<grid_of(tile_count(a, kVecTile, kVecTile)), kVecThreads, 0, ctx.stream>>>(a);
        SMEMLAB_LAUNCH_CHECK();
        return;
      }
    }
    const int resident = smemlab::detail::resident_blocks(tuned_kernel<T>, kTile * kBlockRows);
    const long long tiles = tile_count(a, kTile, kTile);
    tuned_kernel<<<grid_of(std::min<long long>(tiles, resident)), dim3(kTile, kBlockRows), 0, ctx.stream>>>(a, tiles);
    SMEMLAB_LAUNCH_CHECK();
  }
};

}  // namespace

TransposeVariant tuned_variant() {
  return {{.family = "transpose",
           .name = "tuned",
           .description = "64x64 tiles with 16-byte accesses when aligned; else prefetching 32x32",
           .technique = "bytes in flight: 16-byte loads and stores, chunk-swizzled tile, tiles in column order",
           .smem = SmemKind::static_alloc},
          both_types<Tuned>()};
}

}  // namespace smemlab::transpose::detail
