// 03 — sub-histograms, one a lane. Changed from 02: the block keeps up to 32 copies of the
// bins, as many as fit in 32 KiB (256 bins: 32; 1,024: 8; 16,384: 1), interleaved so that copy
// c of bin b is word b * copies + c, and lane l adds into copy l % copies. With 32 copies every
// word of lane l sits in bank l: a warp's 32 atomics never share a bank nor a word, whatever the
// data. The copies are summed at the end. Should buy: on uniform bytes, a warp's atomics in one
// wavefront (a shared-memory pass) instead of about 3.5, so that reading, not counting, sets the
// time; all-equal bytes as fast as uniform ones (02 is fast there already: the SM combines a
// warp's atomics on one word); on floats with 1,024 bins (8 copies, 4 lanes to a bank group) a
// little; nothing where only one copy fits.
#include "histogram/histogram_device.cuh"
#include "histogram/variants.hpp"

namespace smemlab::histogram::detail {
namespace {

constexpr std::size_t kCopiesBudget = 32 << 10;  // bytes: 6 blocks of 256 threads fit an SM
constexpr int kMostCopiesLog2 = 5;               // one copy a lane

template <class T>
struct SubHistograms {
  static void run(const Args<T>& a, cudaStream_t stream) {
    const std::size_t copy_bytes = static_cast<std::size_t>(bin_count(a)) * sizeof(std::uint32_t);
    int copies_log2 = 0;
    while (copies_log2 < kMostCopiesLog2 && (copy_bytes << (copies_log2 + 1)) <= kCopiesBudget) ++copies_log2;
    launch_privatized(a, copies_log2, stream);
  }
};

}  // namespace

HistogramVariant sub_histograms_variant() {
  return {
      {.family = "histogram",
       .name = "sub_histograms",
       .description = "up to 32 copies of the bins, interleaved so that each lane counts in its own bank",
       .technique = "sub-histograms across the banks: no bank conflicts and no shared word in a warp",
       .smem = SmemKind::dynamic_alloc,
       .why_no_model = "atomics: what they cost depends on the data, which the bank analyzer does not see"},
      both_types<SubHistograms>()};
}

}  // namespace smemlab::histogram::detail
