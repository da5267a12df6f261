#include "core/copy_rows.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "smemlab/error.hpp"

namespace smemlab::detail {
namespace {

constexpr int kThreads = 256;
// Each thread has kLoads loads in flight before it stores: a copy of one load and one store
// at a time waits out the memory latency at every element.
constexpr int kLoads = 4;

// A block copies blockDim.y rows at a time, blockDim.x threads across each: narrow rows share
// a block instead of leaving most of its threads idle.
template <class T>
__global__ void copy_rows_kernel(const T* src, int ld_src, T* dst, int ld_dst, int rows, int cols) {
  const int width = static_cast<int>(blockDim.x);
  const int row_step = static_cast<int>(gridDim.x * blockDim.y);
  for (int r = static_cast<int>(blockIdx.x * blockDim.y + threadIdx.y); r < rows; r += row_step) {
    const T* from = src + static_cast<std::size_t>(r) * ld_src;
    T* to = dst + static_cast<std::size_t>(r) * ld_dst;
    for (int c = static_cast<int>(threadIdx.x); c < cols; c += kLoads * width) {
      T v[kLoads];
#pragma unroll
      for (int u = 0; u < kLoads; ++u) v[u] = c + u * width < cols ? from[c + u * width] : T{};
#pragma unroll
      for (int u = 0; u < kLoads; ++u)
        if (c + u * width < cols) to[c + u * width] = v[u];
    }
  }
}

template <class T>
void launch(const void* src, int ld_src, void* dst, int ld_dst, int rows, int cols, cudaStream_t stream) {
  int width = 32;  // the fewest threads across a row whose loads in flight cover it, at most a block
  while (width < kThreads && width * kLoads < cols) width *= 2;
  const dim3 block(width, kThreads / width);
  const auto blocks = static_cast<unsigned>(std::min<long long>((rows + block.y - 1) / block.y, 8192));
  copy_rows_kernel<<<blocks, block, 0, stream>>>(static_cast<const T*>(src), ld_src, static_cast<T*>(dst), ld_dst,
                                                 rows, cols);
  SMEMLAB_LAUNCH_CHECK();
}

// A 32 x 32 tile: each of the 32 x 8 threads reads 4 elements down a column of the tile (the
// warp along a row of src) and, after the barrier, writes 4 along a row of dst (the warp along
// a row of dst), reading the tile down its columns. One padding element a row puts the column's
// 32 elements (4-byte) on 32 different banks; 2-byte elements share a bank two by two.
constexpr int kTile = 32;
constexpr int kTileRows = 8;

template <class T>
__global__ void copy_transposed_kernel(const T* src, int ld_src, T* dst, int ld_dst, int rows, int cols) {
  __shared__ T tile[kTile][kTile + 1];
  const int row0 = static_cast<int>(blockIdx.x) * kTile;
  const int x = static_cast<int>(threadIdx.x);
  // Tiles across a row in steps of the grid's height, which is at most 65535.
  for (int col0 = static_cast<int>(blockIdx.y) * kTile; col0 < cols; col0 += static_cast<int>(gridDim.y) * kTile) {
#pragma unroll
    for (int i = static_cast<int>(threadIdx.y); i < kTile; i += kTileRows) {
      const int r = row0 + i;
      if (r < rows && col0 + x < cols) tile[i][x] = src[static_cast<std::size_t>(r) * ld_src + col0 + x];
    }
    __syncthreads();
#pragma unroll
    for (int i = static_cast<int>(threadIdx.y); i < kTile; i += kTileRows) {
      const int c = col0 + i;  // dst's row
      if (c < cols && row0 + x < rows) dst[static_cast<std::size_t>(c) * ld_dst + row0 + x] = tile[x][i];
    }
    __syncthreads();  // the tile is read before the next is written
  }
}

template <class T>
void launch_transposed(const void* src, int ld_src, void* dst, int ld_dst, int rows, int cols, cudaStream_t stream) {
  const dim3 block(kTile, kTileRows);
  const dim3 grid((rows + kTile - 1) / kTile, std::min((cols + kTile - 1) / kTile, 65535));
  copy_transposed_kernel<<<grid, block, 0, stream>>>(static_cast<const T*>(src), ld_src, static_cast<T*>(dst), ld_dst,
                                                      rows, cols);
  SMEMLAB_LAUNCH_CHECK();
}

}  // namespace

void copy_transposed(const void* src, int ld_src, void* dst, int ld_dst, int rows, int cols,
                     std::size_t element_bytes, cudaStream_t stream) {
  if (element_bytes == 2) {
    launch_transposed<std::uint16_t>(src, ld_src, dst, ld_dst, rows, cols, stream);
  } else if (element_bytes == 4) {
    launch_transposed<std::uint32_t>(src, ld_src, dst, ld_dst, rows, cols, stream);
  } else {
    throw std::invalid_argument("copy_transposed: elements of 2 or 4 bytes only");
  }
}

void copy_rows(const void* src, int ld_src, void* dst, int ld_dst, int rows, int cols, std::size_t element_bytes,
               cudaStream_t stream) {
  if (element_bytes == 2) {
    launch<std::uint16_t>(src, ld_src, dst, ld_dst, rows, cols, stream);
  } else if (element_bytes == 4) {
    launch<std::uint32_t>(src, ld_src, dst, ld_dst, rows, cols, stream);
  } else {
    throw std::invalid_argument("copy_rows: elements of 2 or 4 bytes only");
  }
}

}  // namespace smemlab::detail
