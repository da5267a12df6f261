#include "histogram/models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "histogram/drivers.hpp"

namespace smemlab::histogram::models {
namespace {

using banks::Block;

constexpr int kThreads = 256;
// The grid of a streaming kernel is as many blocks as the device holds at once. Without the
// device at hand the model counts them for 132 SMs (an H100 or H200 SXM) at the blocks an SM's
// threads and shared memory allow; a measurement scales the counts per block to its grid.
constexpr int kSms = 132;
constexpr int kThreadsPerSm = 2048;
constexpr std::size_t kSmemPerSm = 228 << 10;
constexpr std::size_t kReservedPerBlock = 1 << 10;

// The benchmark's first input of each type: bytes into 256 bins, floats into 1,024.
int first_bins(DType type) { return type == DType::u8 ? 256 : 1024; }

std::string input_of(DType type) {
  return type == DType::u8 ? "uniformly random bytes, 256 bins"
                           : "floats uniform in the range, 1,024 bins";
}

std::string kernel_of(const std::string& name, DType type) {
  return fmt::format("{}<{}>(", name, type == DType::u8 ? "unsigned char" : "float");
}

AccessModel streaming(const std::string& kernel, const Shape& s, DType type, std::size_t smem_bytes) {
  AccessModel m;
  m.kernel = kernel;
  m.block = {kThreads, 1, 1};
  m.smem_bytes = smem_bytes;
  m.dynamic_smem = true;
  m.first_launch = true;
  const double n = static_cast<double>(count(s));
  const double bytes = n * static_cast<double>(dtype_bytes(type));
  const auto per_sm = static_cast<double>(
      std::min<std::size_t>(kThreadsPerSm / kThreads, kSmemPerSm / (smem_bytes + kReservedPerBlock)));
  m.blocks = std::max(1.0, std::min(kSms * per_sm, std::ceil(bytes / (16.0 * kThreads))));
  m.global_bytes = bytes + 4.0 * first_bins(type) * m.blocks;
  m.traffic = "every sample read once; one global atomic a bin and block at the end";
  return m;
}

// One atomic a sample: n / 32 warp instructions in the launch, whatever the grid.
CountedAccess count_samples(const std::string& op, const std::string& word, const Shape& s) {
  CountedAccess a =
      counted_access("add one to the sample's bin", op, word, {32, 1, 1}, 4,
                     std::ceil(static_cast<double>(count(s)) / 32));
  a.per_launch = true;
  return a;
}

// 02 and 03: `copies` interleaved copies of the bins (copy c of bin b is word b * copies + c);
// lane l adds into copy l % copies.
AccessModel privatized(const Shape& s, DType type, int copies_log2) {
  const int bins = first_bins(type);
  const int copies = 1 << copies_log2;
  const int words = bins * copies;
  AccessModel m = streaming(kernel_of("privatized_kernel", type), s, type,
                            static_cast<std::size_t>(words) * sizeof(std::uint32_t));
  const Block all{kThreads, 1, 1};
  m.accesses.push_back(counted_access("clear the copies", "st", "tx", all, 4, words / kThreads));
  const std::string word = copies == 1 ? fmt::format("rand({})", bins)
                                       : fmt::format("{}*rand({}) + (tx & {})", copies, bins, copies - 1);
  m.accesses.push_back(count_samples("atom", word, s));
  // Thread t sums bin t (and t + 256, ...), starting at copy (t >> (5 - copies_log2)) % copies;
  // every step of the sum has the first step's banks, so the first stands for all.
  const std::string sum =
      copies == 1 ? "tx" : fmt::format("{}*tx + ((tx >> {}) & {})", copies, 5 - copies_log2, copies - 1);
  m.accesses.push_back(counted_access("sum the copies of the thread's bins", "ld", sum, all, 4,
                                      static_cast<double>(bins / kThreads) * copies));
  return m;
}

}  // namespace

AccessModel shared_atomics(const Shape& s, DType type) {
  AccessModel m = privatized(s, type, 0);
  m.notes = fmt::format(
      "For {} (the benchmark's first input): lanes adding to the same bin are served together, so "
      "a warp's atomic takes as many wavefronts as its busiest bank has distinct bins, about {} "
      "here; all-equal bytes take 1.",
      input_of(type), type == DType::u8 ? "3.15 (8 bins a bank)" : "3.45 (32 bins a bank)");
  return m;
}

AccessModel sub_histograms(const Shape& s, DType type) {
  const int copies_log2 = detail::sub_histogram_copies_log2(first_bins(type));
  AccessModel m = privatized(s, type, copies_log2);
  m.notes = fmt::format(
      "For {} (the benchmark's first input), {} copies: {}",
      input_of(type), 1 << copies_log2,
      copies_log2 == 5
          ? "lane l's words all sit in bank l, so every atomic is one wavefront, whatever the data. "
            "The price is the clearing and summing of 32 copies a block."
          : "lanes l and l + copies share banks, so random bins still conflict, less than with one "
            "copy. Each group of lanes starts its sum at a copy of its own: 32 banks a read.");
  return m;
}

AccessModel cluster(const Shape& s, DType type) {
  // Up to 16,384 bins one block keeps them all: a cluster of one, whose atomics still go
  // through the cluster's window of shared memory.
  const int bins = first_bins(type);
  AccessModel m = streaming(kernel_of("cluster_kernel", type), s, type,
                            static_cast<std::size_t>(bins) * sizeof(std::uint32_t));
  const Block all{kThreads, 1, 1};
  m.accesses.push_back(counted_access("clear the block's slice", "st", "tx", all, 4, bins / kThreads));
  m.accesses.push_back(count_samples("atom.cluster", fmt::format("rand({})", bins), s));
  m.accesses.push_back(counted_access("read the slice's counts", "ld", "tx", all, 4, bins / kThreads));
  m.notes = fmt::format(
      "For {} (the benchmark's first input), a cluster of one block. An atomic through the "
      "cluster's distributed shared memory serves each lane apart, lanes on one bin included: as "
      "many wavefronts as the busiest bank has lanes (about 3.5 for random bins, where 02 takes "
      "3.15 to 3.45), and 32 for all-equal bytes, where 02 takes 1.",
      input_of(type));
  return m;
}

}  // namespace smemlab::histogram::models
