// 03 — sub-histograms, one a lane. Changed from 02: the block keeps up to 32 copies of the
// bins, as many as fit in 32 KiB (256 bins: 32; 1,024: 8; 16,384: 1), interleaved so that copy
// c of bin b is word b * copies + c, and lane l adds into copy l % copies. With 32 copies every
// word of lane l sits in bank l: a warp's 32 atomics never share a bank nor a word, whatever the
// data. The copies are summed at the end. Should buy: on uniform bytes, a warp's atomics in one
// wavefront (a shared-memory pass) instead of about 3.15, so that reading, not counting, sets the
// time; all-equal bytes as fast as uniform ones (02 is fast there already: the SM combines a
// warp's atomics on one word); on floats with 1,024 bins (8 copies, 4 lanes to a bank group) a
// little; nothing where only one copy fits.
#include "histogram/histogram_device.cuh"
#include "histogram/models.hpp"
#include "histogram/variants.hpp"

namespace smemlab::histogram::detail {
namespace {

template <class T>
struct SubHistograms {
  static void run(const Args<T>& a, cudaStream_t stream) {
    launch_privatized(a, sub_histogram_copies_log2(bin_count(a)), stream);
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
       .model = models::sub_histograms},
      both_types<SubHistograms>()};
}

}  // namespace smemlab::histogram::detail
