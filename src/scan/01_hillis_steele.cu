// 01 — the naive scan in shared memory (Hillis and Steele): each block loads 512 elements, one
// a thread, then in round r = 0..8 every thread adds the word 2^r places before its own, reading
// one buffer and writing the other (a round's reads must all see the last round's words).
// 9 rounds of 512 additions: n log2(512) additions where a sequential scan needs n, but every
// access is to consecutive words, so none conflicts. Blocks' totals are scanned the same way
// and added back (scan then propagate): n is read twice and written twice.
#include "scan/models.hpp"
#include "scan/propagate.cuh"
#include "scan/variants.hpp"

namespace smemlab::scan::detail {
namespace {

constexpr int kThreads = 512;

template <class W>
__global__ void __launch_bounds__(kThreads)
    hillis_steele_kernel(const W* __restrict__ in, W* out, std::size_t n, bool exclusive, W* totals) {
  __shared__ W buffer[2][kThreads];
  const int t = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * kThreads + t;
  buffer[0][t] = i < n ? in[i] : W(0);
  int from = 0;
  for (int offset = 1; offset < kThreads; offset *= 2) {
    __syncthreads();
    const W mine = buffer[from][t];
    buffer[from ^ 1][t] = t >= offset ? buffer[from][t - offset] + mine : mine;
    from ^= 1;
  }
  __syncthreads();
  if (i < n) out[i] = !exclusive ? buffer[from][t] : t > 0 ? buffer[from][t - 1] : W(0);
  if (totals != nullptr && t == kThreads - 1) totals[blockIdx.x] = buffer[from][t];
}

template <class W>
void pass(const W* in, W* out, std::size_t n, bool exclusive, W* totals, cudaStream_t stream) {
  hillis_steele_kernel<<<grid_size(ceil_div(n, kThreads)), kThreads, 0, stream>>>(in, out, n, exclusive,
                                                                                  totals);
  SMEMLAB_LAUNCH_CHECK();
}

template <class W>
struct HillisSteele {
  static std::size_t workspace(std::size_t n) { return levels_workspace_bytes(n, kThreads, sizeof(W)); }
  static void run(const W* in, W* out, std::size_t n, bool exclusive, void* ws, cudaStream_t stream) {
    scan_then_propagate<W>(in, out, n, exclusive, ws, kThreads, pass<W>, stream);
  }
};

}  // namespace

ScanVariant hillis_steele_variant() {
  return {{.family = "scan",
           .name = "hillis_steele",
           .description = "naive scan: 9 double-buffered rounds over 512 words a block",
           .technique = "Hillis-Steele: log n rounds, each thread adds the word 2^r before its own",
           .smem = SmemKind::static_alloc,
           .model = models::hillis_steele},
          both_types<HillisSteele>()};
}

}  // namespace smemlab::scan::detail
