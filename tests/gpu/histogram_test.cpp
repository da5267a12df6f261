// Every histogram variant, bytes and floats, against the CPU's counts, exactly: bytes uniform
// and all equal; floats with samples outside the range, NaN, infinities and the range's edges,
// into 1 to 65,536 bins; from aligned and misaligned starts; counts and the dropped counter
// poisoned first, the workspace full of garbage; and more than 2^31 bytes.
#include "smemlab/histogram.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "smemlab/device_buffer.hpp"
#include "support/gpu.hpp"

using namespace smemlab;

namespace {

using histogram::Counts;

// Runs a variant on `samples` placed `offset` elements past an aligned allocation.
template <class T>
Counts run_variant(const histogram::HistogramVariant& v, const std::vector<T>& samples, std::size_t offset,
                   int bins, float lower, float upper) {
  const std::size_t n = samples.size();
  DeviceBuffer<T> buffer(n + offset + 1);
  if (n > 0)
    SMEMLAB_CUDA_CHECK(
        cudaMemcpy(buffer.data() + offset, samples.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  DeviceBuffer<std::uint32_t> counts(static_cast<std::size_t>(bins));
  DeviceBuffer<std::uint32_t> dropped(1);
  counts.poison(nullptr);
  dropped.poison(nullptr);
  DeviceBuffer<unsigned char> workspace(histogram::workspace_bytes<T>(v, n, bins));
  SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.bytes()));
  const bool floats = std::is_same_v<T, float>;
  histogram::run<T>(v,
                    {.samples = buffer.data() + offset,
                     .n = n,
                     .counts = counts.data(),
                     .bins = bins,
                     .lower = lower,
                     .upper = upper,
                     .dropped = floats ? dropped.data() : nullptr,
                     .workspace = workspace.data()},
                    {});
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  Counts got{std::vector<std::uint32_t>(static_cast<std::size_t>(bins)), 0};
  counts.download(got.bins, nullptr);
  if (floats) {
    std::vector<std::uint32_t> d(1);
    dropped.download(d, nullptr);
    got.dropped = d[0];
  }
  return got;
}

class HistogramVariant : public testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void check_bytes(const histogram::HistogramVariant& v) {
    std::mt19937 gen(7);
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16},
                                std::size_t{17}, std::size_t{1000003}, (std::size_t{1} << 24) + 7}) {
      std::vector<std::uint8_t> uniform(n);
      for (auto& x : uniform) x = static_cast<std::uint8_t>(gen());
      std::vector<std::uint8_t> equal(n, 0x5A);
      for (const auto* data : {&uniform, &equal})
        for (const std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
          SCOPED_TRACE(testing::Message()
                       << "n=" << n << (data == &equal ? " all equal" : " uniform") << " offset=" << offset);
          const Counts got = run_variant(v, *data, offset, 256, 0, 1);
          EXPECT_TRUE(got == histogram::reference_counts<std::uint8_t>(*data, 256, 0, 1));
        }
    }
  }

  void check_floats(const histogram::HistogramVariant& v) {
    struct Range {
      int bins;
      float lower;
      float upper;
    };
    // Scales that are powers of two, and one that is not.
    const std::vector<Range> ranges{{1, -2, 2},       {4, -2, 2},     {1024, -2, 2},
                                    {16384, 0, 1},    {65536, -2, 2}, {1000, -1.5F, 2.25F}};
    std::mt19937 gen(11);
    for (const std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000003}, (std::size_t{1} << 22) + 3}) {
      for (const Range& r : ranges) {
        std::uniform_real_distribution<float> wide(r.lower - 0.25F * (r.upper - r.lower),
                                                   r.upper + 0.25F * (r.upper - r.lower));
        std::vector<float> samples(n);
        for (auto& x : samples) x = wide(gen);
        // The last float below upper: (x - lower) * scale can round to `bins`, which the rule
        // clamps to the last bin (for CUB too, which does not clamp by itself).
        const float specials[] = {r.lower,
                                  r.upper,
                                  std::nextafter(r.upper, r.lower),
                                  std::nanf(""),
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity()};
        for (std::size_t i = 0; i < n && i < 6; ++i) samples[i * n / 6] = specials[i];
        for (const std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
          SCOPED_TRACE(testing::Message() << "n=" << n << " bins=" << r.bins << " range [" << r.lower << ", "
                                          << r.upper << ") offset=" << offset);
          const Counts got = run_variant(v, samples, offset, r.bins, r.lower, r.upper);
          const Counts want = histogram::reference_counts<float>(samples, r.bins, r.lower, r.upper);
          EXPECT_EQ(got.dropped, want.dropped);
          EXPECT_TRUE(got.bins == want.bins);
        }
      }
    }
  }
};

TEST_P(HistogramVariant, CountsExactlyOnEveryCase) {
  SMEMLAB_REQUIRE_GPU();
  const auto& v = histogram::find(std::get<0>(GetParam()));
  if (const std::string why = v.info.why_unavailable(); !why.empty()) GTEST_SKIP() << why;
  if (std::get<1>(GetParam()) == "float") {
    check_floats(v);
  } else {
    check_bytes(v);
  }
}

std::vector<std::tuple<std::string, std::string>> variant_types() {
  std::vector<std::tuple<std::string, std::string>> out;
  for (const auto& v : histogram::variants())
    for (const DType t : v.info.dtypes) out.emplace_back(v.info.name, dtype_name(t));
  return out;
}

INSTANTIATE_TEST_SUITE_P(Histogram, HistogramVariant, testing::ValuesIn(variant_types()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

// More than 2^31 bytes: counts past what a signed 32-bit offset reaches.
TEST(Histogram, MoreThanTwoToThe31Bytes) {
  SMEMLAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 31) + 4097;
  std::vector<std::uint8_t> samples(n);
  for (std::size_t i = 0; i < n; ++i) samples[i] = static_cast<std::uint8_t>((i * 2654435761ULL) >> 13);
  const Counts want = histogram::reference_counts<std::uint8_t>(samples, 256, 0, 1);
  for (const auto& v : histogram::variants()) {
    if (!v.info.why_unavailable().empty()) continue;
    SCOPED_TRACE(std::string(v.info.name));
    EXPECT_TRUE(run_variant(v, samples, 1, 256, 0, 1) == want);
  }
}

}  // namespace
