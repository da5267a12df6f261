#pragma once
// Device building blocks of the reduction kernels: warp and block sums, and a thread's
// grid-stride partial sum with scalar or 16-byte loads.
#include <cstddef>
#include <cstdint>

namespace smemlab::reduce::detail {

constexpr unsigned kFullWarp = 0xFFFFFFFFU;

// Sum across the warp by shuffles: no shared memory, no barrier. Valid in lane 0.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(kFullWarp, v, offset);
  return v;
}

// Sum across a block of Threads threads (a multiple of 32): warp sums, one shared word per
// warp, then the first warp. Valid in thread 0. Callers that use it twice need a barrier between.
template <int Threads, class T>
__device__ __forceinline__ T block_sum(T v) {
  static_assert(Threads % 32 == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  __shared__ T warp_sums[Threads / 32];
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < Threads / 32 ? warp_sums[lane] : T(0);
    v = warp_sum(v);
  }
  return v;
}

// The block step of the tutorial “Shared Memory”: the block's Threads values of in[0, n) (zeros
// past the end) go into the shared array s_y and are halved there, a barrier after every round; the
// block's sum lands in partials[blockIdx.x]. The static and the dynamic variant differ only in how
// s_y is declared.
template <int Threads, class T>
__device__ __forceinline__ void halve_block_in_shared(const T* __restrict__ in, std::size_t n,
                                                      T* s_y, T* partials) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * Threads + threadIdx.x;
  s_y[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
#pragma unroll
  for (int offset = Threads / 2; offset > 0; offset /= 2) {
    if (threadIdx.x < offset) s_y[threadIdx.x] += s_y[threadIdx.x + offset];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = s_y[0];
}

__device__ __forceinline__ std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ std::size_t grid_threads() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// This thread's share of in[0, n) by a grid-stride loop, one element at a time.
template <class T>
__device__ __forceinline__ T grid_stride_partial(const T* __restrict__ in, std::size_t n) {
  T acc = 0;
  for (std::size_t i = global_thread(); i < n; i += grid_threads()) acc += in[i];
  return acc;
}

// 16 bytes of T: float4 or double2.
template <class T>
struct Vec16;
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int width = 4;
  __device__ static float sum(float4 v) { return (v.x + v.y) + (v.z + v.w); }
};
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int width = 2;
  __device__ static double sum(double2 v) { return v.x + v.y; }
};

// This thread's share of in[0, n) with 16-byte loads, four in flight per thread. Blocks take
// tiles of 4 x blockDim vectors in turn (tile b, b + gridDim, ...): the four loads of a warp fall
// in one 4 x 512-byte window, which keeps DRAM accesses local. The input may start anywhere (a
// sub-array): the elements before the first 16-byte boundary and after the last whole vector are
// added one by one by the first threads of the grid.
template <class T>
__device__ __forceinline__ T vectorized_partial(const T* __restrict__ in, std::size_t n) {
  using V = typename Vec16<T>::type;
  constexpr int kWidth = Vec16<T>::width;
  constexpr int kUnroll = 4;
  const std::size_t misaligned = (reinterpret_cast<std::uintptr_t>(in) % 16) / sizeof(T);
  const std::size_t head = misaligned == 0 ? 0 : std::min<std::size_t>(n, kWidth - misaligned);
  const std::size_t vectors = (n - head) / kWidth;
  const std::size_t tail_start = head + vectors * kWidth;
  const V* __restrict__ body = reinterpret_cast<const V*>(in + head);

  const std::size_t tile = static_cast<std::size_t>(kUnroll) * blockDim.x;
  const std::size_t full_tiles = vectors / tile;
  T acc[kUnroll] = {};
  for (std::size_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    const V* __restrict__ p = body + t * tile + threadIdx.x;
    V v[kUnroll];
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) v[j] = p[j * blockDim.x];  // all loads issued first
#pragma unroll
    for (int j = 0; j < kUnroll; ++j) acc[j] += Vec16<T>::sum(v[j]);
  }
  // The last partial tile, spread over the whole grid.
  for (std::size_t i = full_tiles * tile + global_thread(); i < vectors; i += grid_threads())
    acc[0] += Vec16<T>::sum(body[i]);
  const std::size_t g = global_thread();
  if (g < head) acc[1] += in[g];
  if (g < n - tail_start) acc[2] += in[tail_start + g];
  return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

}  // namespace smemlab::reduce::detail
