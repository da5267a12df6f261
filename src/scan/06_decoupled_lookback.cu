// 06 — one pass with decoupled look-back (Merrill and Garland). Changed from 05: no pass of
// totals first. Each block takes the next tile from a counter, publishes the tile's total as
// soon as it has loaded it, then its first warp reads the status of the 32 tiles before it: once
// one of them has published its inclusive prefix and every later one its total, the prefix is
// that prefix plus those totals, and the block publishes its own inclusive prefix for the tiles
// after it. The warp pauses for about a microsecond between publishing the total and its first
// read of the others. Should buy: n read once and written once, 2n words where 05 moves 3n: the
// scan runs near copy speed. The totals are added oldest first, one after another, so a tile's
// prefix is the same left fold whichever published prefix it found: float results are the same
// bits on every run. The status words and the counter live in the workspace, cleared on the stream
// first (one memset).
#include <cuda/atomic>

#include "scan/drivers.hpp"
#include "scan/scan_device.cuh"
#include "scan/variants.hpp"

namespace smemlab::scan::detail {
namespace {

// 24 elements a thread (six 16-byte loads in flight), 256 threads: 4 blocks an SM at 64
// registers, 6,144 elements a tile (docs/perf/scan.md has the configurations measured).
constexpr int kThreads = 256;
constexpr int kItems = 24;
constexpr int kTile = kThreads * kItems;
constexpr std::size_t kCounterBytes = 256;  // the tile counter, then the status words
// The look-back keeps up to this many windows of 32 totals while no prefix is in sight.
constexpr int kWindows = 8;
// How long the look-back warp sleeps after publishing its tile's total before it first reads the
// tiles before it: about two round trips to L2 under a streaming load. Measured on an H200 at
// 2^28: reading at once, a tile read the status words 7 times on average and the scan ran at
// 0.86x CUB, as it did with one read before the pause; with the pause first, 1.00x (on an H100,
// 0.88x to 0.99x; docs/perf/scan.md). The likely cause: the reads
// of hundreds of warps land on the few L2 lines holding the newest tiles' status words, where the
// totals and prefixes they wait for are written.
constexpr unsigned kFirstPollDelayNs = 1200;

// A tile's status: the flag in the high half, the value's bits in the low half, written and read
// as one 8-byte word so that a flag never arrives without its value. Zero: nothing yet.
enum Flag : unsigned { kNothing = 0, kTotal = 1, kPrefix = 2 };

using Status = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

template <class W>
__device__ __forceinline__ unsigned long long pack(Flag flag, W value) {
  return static_cast<unsigned long long>(flag) << 32 | word_to_bits(value);
}

template <class W>
__device__ __forceinline__ W value_of(unsigned long long word) {
  return bits_to_word<W>(static_cast<unsigned>(word));
}

// Run by the first warp of the block that scans `tile`: publishes the tile's total, finds the
// sum of everything before it, publishes the inclusive prefix, and returns the sum (all lanes).
template <class W>
__device__ W look_back(unsigned long long* status, unsigned tile, W total, W (&history)[kWindows][32]) {
  const unsigned lane = threadIdx.x % 32;
  if (tile == 0) {
    if (lane == 0) Status(status[0]).store(pack(kPrefix, total), cuda::memory_order_relaxed);
    return W(0);
  }
  if (lane == 0) Status(status[tile]).store(pack(kTotal, total), cuda::memory_order_relaxed);
  __nanosleep(kFirstPollDelayNs);
  // Window w holds tiles [tile - 32 (w + 1), tile - 32 w); tiles before 0 read as prefix 0.
  int window = 0;
  int found = -1;  // the lane of the newest prefix in the oldest window read
  for (;;) {
    const long long at = static_cast<long long>(tile) - 32 * (window + 1) + lane;
    const unsigned long long word =
        at >= 0 ? Status(status[at]).load(cuda::memory_order_relaxed) : pack(kPrefix, W(0));
    const auto flag = static_cast<Flag>(word >> 32);
    const unsigned prefixes = __ballot_sync(kFullWarp, flag == kPrefix);
    const unsigned waiting = __ballot_sync(kFullWarp, flag != kPrefix && flag != kTotal);
    history[window][lane] = value_of<W>(word);
    if (prefixes != 0) {
      found = 31 - __clz(prefixes);
      if ((waiting >> found) == 0) break;  // every tile after the prefix has its total
    } else if (waiting == 0 && window + 1 < kWindows) {
      ++window;  // 32 totals and no prefix: keep them, read the 32 tiles before
    }
  }
  __syncwarp();
  W prefix = W(0);
  if (lane == 0) {
    prefix = history[window][found];
    for (int k = found + 1; k < 32; ++k) prefix = prefix + history[window][k];
    for (int w = window - 1; w >= 0; --w)
      for (int k = 0; k < 32; ++k) prefix = prefix + history[w][k];
    Status(status[tile]).store(pack(kPrefix, prefix + total), cuda::memory_order_relaxed);
  }
  return __shfl_sync(kFullWarp, prefix, 0);
}

template <class W>
__global__ void __launch_bounds__(kThreads, 4)
    lookback_kernel(const W* __restrict__ in, W* out, std::size_t n, bool vector, bool exclusive,
                    unsigned* counter, unsigned long long* status) {
  using Tile = TileScan<W, kThreads, kItems>;
  __shared__ typename Tile::Storage storage;
  __shared__ W history[kWindows][32];
  __shared__ unsigned tile_index;
  __shared__ W tile_prefix;
  // Tiles are taken in the order blocks start, not by blockIdx: a block only waits for tiles
  // taken before its own, whose blocks are running or done.
  if (threadIdx.x == 0) tile_index = atomicAdd(counter, 1U);
  __syncthreads();
  const unsigned tile = tile_index;
  Tile::scan_tile(in, out, n, std::size_t{tile} * kTile, vector, exclusive, storage, [&](W total) {
    if (threadIdx.x < 32) {
      const W prefix = look_back(status, tile, total, history);
      if (threadIdx.x == 0) tile_prefix = prefix;
    }
    __syncthreads();
    return tile_prefix;
  });
}

template <class W>
struct DecoupledLookback {
  static std::size_t workspace(std::size_t n) {
    return kCounterBytes + ceil_div(n, kTile) * sizeof(unsigned long long);
  }
  static void run(const W* in, W* out, std::size_t n, bool exclusive, void* ws, cudaStream_t stream) {
    if (n == 0) return;
    const std::size_t tiles = ceil_div(n, kTile);
    auto* const counter = static_cast<unsigned*>(ws);
    auto* const status =
        reinterpret_cast<unsigned long long*>(static_cast<unsigned char*>(ws) + kCounterBytes);
    SMEMLAB_CUDA_CHECK(cudaMemsetAsync(ws, 0, workspace(n), stream));
    lookback_kernel<<<grid_size(tiles), kThreads, 0, stream>>>(in, out, n, aligned16(in) && aligned16(out),
                                                               exclusive, counter, status);
    SMEMLAB_LAUNCH_CHECK();
  }
};

}  // namespace

ScanVariant decoupled_lookback_variant() {
  return {{.family = "scan",
           .name = "decoupled_lookback",
           .description = "one pass: each tile publishes its total, then looks back for its prefix",
           .technique = "decoupled look-back: n read once, written once, deterministic order",
           .smem = SmemKind::static_alloc,
           .why_no_model = "the look-back's shared-memory reads and writes grow with how long each tile "
                           "waits (measured: 4-6% of the loads), more than a model may miss"},
          both_types<DecoupledLookback>()};
}

}  // namespace smemlab::scan::detail
