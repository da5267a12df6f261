// 03 — sub-histograms and runs. Changed from 02: a block keeps up to 8 copies of the bins, one
// for each warp (as many as fit in 64 KiB), so that warps counting the same bin do not wait for
// each other's atomics, and a thread counts a run of samples of one bin in a register, one
// atomic a run; the copies are added together at the end. Should buy: on skewed data (all
// samples equal: every lane of every warp on one word) the atomics divided by the run lengths
// and their collisions by the copies; on uniform data, where runs are rare and a bin is seldom
// hit by two warps at once, a compare a sample more and about the speed of 02.
#include "histogram/histogram_device.cuh"
#include "histogram/variants.hpp"

namespace smemlab::histogram::detail {
namespace {

constexpr std::size_t kCopiesBudget = 64 << 10;

template <class T>
struct SubHistograms {
  static void run(const Args<T>& a, cudaStream_t stream) {
    const std::size_t copy_bytes = static_cast<std::size_t>(bin_count(a)) * sizeof(std::uint32_t);
    const int copies =
        static_cast<int>(std::clamp<std::size_t>(kCopiesBudget / copy_bytes, 1, kThreads / 32));
    launch_privatized<true>(a, copies, stream);
  }
};

}  // namespace

HistogramVariant sub_histograms_variant() {
  return {
      {.family = "histogram",
       .name = "sub_histograms",
       .description = "a copy of the bins for each warp (up to 8) and runs of one bin counted in registers",
       .technique = "sub-histograms and run aggregation: less contention on skewed data",
       .smem = SmemKind::dynamic_alloc,
       .why_no_model = "atomics: what they cost depends on the data, which the bank analyzer does not see"},
      both_types<SubHistograms>()};
}

}  // namespace smemlab::histogram::detail
