// 01 — copy: the same bytes copied, not transposed, in the order that suits DRAM best: the
// output is written as one contiguous stream and each input row is read from its start to its
// end. Where the pointers are 16-byte aligned and the rows (and the input's leading dimension)
// hold whole 16-byte chunks, every access is 16 bytes wide for float and double alike; the
// bytes are only moved, so their type does not matter. A transpose must turn the access pattern
// around on one side, so this is the ceiling the others are read against, next to cudaMemcpy
// (which cannot follow a leading dimension).
#include <cstdint>
#include <limits>

#include "core/occupancy.hpp"
#include "smemlab/error.hpp"
#include "transpose/transpose_device.cuh"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {
namespace {

// Threads x loads per thread, measured at 8192^2 and 16384^2 float on the H200: 1024 x 2 was
// fastest, 512 x 2 up to 1% slower, 512 x 4 2%, 256 x 4, 256 x 8 and 128 x 8 3%.
constexpr int kThreads = 1024;
constexpr int kPerThread = 2;  // loads in flight per thread before the first store
constexpr int kPerBlock = kThreads * kPerThread;

// Unit: the element moved (uint4 on the 16-byte path, else T). Index: 32 bits where the count of
// units fits, so the row division is a 32-bit one.
template <class Unit, class Index>
struct CopyArgs {
  const Unit* in;
  Index ld_in;  // in units
  Index row_units;  // units per row
  Index total;  // rows * row_units
  Unit* out;
};

template <bool Checked, class Unit, class Index>
__device__ __forceinline__ void copy_units(const CopyArgs<Unit, Index>& a, Index first) {
  Unit v[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const Index i = first + static_cast<Index>(k * kThreads);
    if (Checked && i >= a.total) break;
    const Index r = i / a.row_units;
    v[k] = a.in[r * a.ld_in + (i - r * a.row_units)];
  }
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const Index i = first + static_cast<Index>(k * kThreads);
    if (Checked && i >= a.total) break;
    a.out[i] = v[k];
  }
}

template <class Unit, class Index>
__global__ void __launch_bounds__(kThreads) copy_kernel(CopyArgs<Unit, Index> a) {
  const Index block_first = static_cast<Index>(blockIdx.x) * kPerBlock;
  const Index first = block_first + threadIdx.x;
  if (block_first + kPerBlock <= a.total) {  // every block but the last
    copy_units<false>(a, first);
  } else {
    copy_units<true>(a, first);
  }
}

template <class Unit>
void launch_units(const Unit* in, long long ld_in, long long row_units, long long rows, Unit* out,
                  cudaStream_t stream) {
  const long long total = rows * row_units;
  const unsigned grid = grid_of((total + kPerBlock - 1) / kPerBlock);
  // 32-bit indices while every index, and the largest input offset, fits.
  if ((rows - 1) * ld_in + row_units + kPerBlock <= std::numeric_limits<std::uint32_t>::max()) {
    using I = std::uint32_t;
    copy_kernel<<<grid, kThreads, 0, stream>>>(CopyArgs<Unit, I>{in, static_cast<I>(ld_in),
                                                                 static_cast<I>(row_units),
                                                                 static_cast<I>(total), out});
  } else {
    using I = std::uint64_t;
    copy_kernel<<<grid, kThreads, 0, stream>>>(CopyArgs<Unit, I>{in, static_cast<I>(ld_in),
                                                                 static_cast<I>(row_units),
                                                                 static_cast<I>(total), out});
  }
  SMEMLAB_LAUNCH_CHECK();
}

template <class T>
struct Copy {
  static void launch(const Args<T>& a, const LaunchContext& ctx) {
    constexpr int kPerChunk = 16 / sizeof(T);
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    if (aligned(a.in) && aligned(a.out) && a.cols % kPerChunk == 0 && a.ld_in % kPerChunk == 0) {
      launch_units(reinterpret_cast<const uint4*>(a.in), a.ld_in / kPerChunk, a.cols / kPerChunk, a.rows,
                   reinterpret_cast<uint4*>(a.out), ctx.stream);
    } else {
      launch_units(a.in, a.ld_in, a.cols, a.rows, a.out, ctx.stream);
    }
  }
};

}  // namespace

TransposeVariant copy_variant() {
  return {{.family = "transpose",
           .name = "copy",
           .description = "copy, not transpose: rows read in order, output written as one stream",
           .technique = "coalesced both ways, 16-byte accesses when aligned: the bandwidth ceiling",
           .smem = SmemKind::none,
           .why_no_model = "uses no shared memory"},
          both_types<Copy>(true)};
}

}  // namespace smemlab::transpose::detail
