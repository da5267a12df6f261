#pragma once
// The work-efficient tree of steps 02 and 03 (Blelloch's up-sweep and down-sweep), with or
// without the conflict-free offset.
#include "scan/propagate.cuh"

namespace smemlab::scan::detail {

constexpr int kTreeThreads = 512;
constexpr int kTreeTile = 2 * kTreeThreads;  // two elements a thread

// Where word i of the tree is kept: one padding word after every 32, and one more after every
// 1,024 (the intended "(n >> LOG_NUM_BANKS) + (n >> (2 * LOG_NUM_BANKS))" for 32 banks), so
// that the tree's strided indices spread over the banks; or i itself.
template <bool Padded>
__device__ __forceinline__ int tree_slot(int i) {
  return Padded ? i + (i >> 5) + (i >> 10) : i;
}

// Up-sweep: in round d (512, 256, ..., 1 active threads) thread t adds the word at the end of
// the left half of its subtree into the end of the right half, at indices stride*(2t+1)-1 and
// stride*(2t+2)-1: the stride doubles every round, and without padding so do the conflicts.
// The root, the tile's total, is swapped for zero; the down-sweep then passes each subtree's
// prefix down to its halves, leaving the exclusive scan.
template <bool Padded, class W>
__global__ void __launch_bounds__(kTreeThreads)
    up_down_sweep_kernel(const W* __restrict__ in, W* out, std::size_t n, bool exclusive, W* totals) {
  __shared__ W tree[kTreeTile + (Padded ? kTreeTile / 32 + 1 : 0)];
  const int t = threadIdx.x;
  const std::size_t base = std::size_t{blockIdx.x} * kTreeTile;
  const int a = t;
  const int b = t + kTreeThreads;
  const W x_a = base + a < n ? in[base + a] : W(0);
  const W x_b = base + b < n ? in[base + b] : W(0);
  tree[tree_slot<Padded>(a)] = x_a;
  tree[tree_slot<Padded>(b)] = x_b;
  int stride = 1;
  for (int active = kTreeTile / 2; active > 0; active /= 2, stride *= 2) {
    __syncthreads();
    if (t < active) {
      const int left = tree_slot<Padded>(stride * (2 * t + 1) - 1);
      const int right = tree_slot<Padded>(stride * (2 * t + 2) - 1);
      tree[right] = tree[left] + tree[right];
    }
  }
  __syncthreads();
  if (t == 0) {
    const int root = tree_slot<Padded>(kTreeTile - 1);
    if (totals != nullptr) totals[blockIdx.x] = tree[root];
    tree[root] = W(0);
  }
  for (int active = 1; active < kTreeTile; active *= 2) {
    stride /= 2;
    __syncthreads();
    if (t < active) {
      const int left = tree_slot<Padded>(stride * (2 * t + 1) - 1);
      const int right = tree_slot<Padded>(stride * (2 * t + 2) - 1);
      const W left_sum = tree[left];
      const W prefix = tree[right];
      tree[left] = prefix;
      tree[right] = prefix + left_sum;
    }
  }
  __syncthreads();
  const W before_a = tree[tree_slot<Padded>(a)];
  const W before_b = tree[tree_slot<Padded>(b)];
  if (base + a < n) out[base + a] = exclusive ? before_a : before_a + x_a;
  if (base + b < n) out[base + b] = exclusive ? before_b : before_b + x_b;
}

template <bool Padded, class W>
void tree_pass(const W* in, W* out, std::size_t n, bool exclusive, W* totals, cudaStream_t stream) {
  up_down_sweep_kernel<Padded, W>
      <<<grid_size(ceil_div(n, kTreeTile)), kTreeThreads, 0, stream>>>(in, out, n, exclusive, totals);
  SMEMLAB_LAUNCH_CHECK();
}

template <bool Padded>
struct Tree {
  template <class W>
  struct Launch {
    static std::size_t workspace(std::size_t n) { return levels_workspace_bytes(n, kTreeTile, sizeof(W)); }
    static void run(const W* in, W* out, std::size_t n, bool exclusive, void* ws, cudaStream_t stream) {
      scan_then_propagate<W>(in, out, n, exclusive, ws, kTreeTile, tree_pass<Padded, W>, stream);
    }
  };
};

}  // namespace smemlab::scan::detail
