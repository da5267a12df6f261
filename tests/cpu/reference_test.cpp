// The CPU reference and the verifier: the ground truth for every kernel check, so they are
// checked here against hand-computed values, and the tolerance is shown to accept honest FP32
// rounding while rejecting the kind of defect a kernel has.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "smemlab/matmul.hpp"
#include "histogram/binning.hpp"
#include "smemlab/histogram.hpp"
#include "smemlab/scan.hpp"
#include "bench/verify.hpp"

using namespace smemlab;

TEST(Reference, HandComputedProductWithLeadingDimensionsAlphaAndBeta) {
  // A 2x3 (lda 4), B 3x2 (ldb 3), C 2x2 (ldc 3); padding holds NaN and must not be read.
  const float nan = std::nanf("");
  const std::vector<float> a{1, 2, 3, nan, 4, 5, 6, nan};
  const std::vector<float> b{7, 8, nan, 9, 10, nan, 11, 12, nan};
  const std::vector<float> c{1, 2, nan, 3, 4, nan};
  std::vector<double> out(4);
  matmul::reference_gemm(2, 2, 3, 2.0, a.data(), 4, b.data(), 3, -1.0, c.data(), 3, out.data(), 2);
  // A*B = [58 64; 139 154]
  EXPECT_EQ(out, (std::vector<double>{2 * 58 - 1, 2 * 64 - 2, 2 * 139 - 3, 2 * 154 - 4}));
  // beta = 0: C is not read at all.
  matmul::reference_gemm(2, 2, 3, 1.0, a.data(), 4, b.data(), 3, 0.0, nullptr, 3, out.data(), 2);
  EXPECT_EQ(out, (std::vector<double>{58, 64, 139, 154}));
}

TEST(Verify, CatchesNonFiniteAndSingleWrongElements) {
  const std::size_t n = 1000;
  std::vector<double> ref(n * n);
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& x : ref) x = dist(gen);
  std::vector<float> x(ref.begin(), ref.end());
  const double tol = matmul::relative_tolerance(1000);
  EXPECT_TRUE(compare_matrix<float>(n, n, x.data(), n, ref.data(), n).within(tol));

  auto poisoned = x;
  poisoned[n * n - 1] = std::nanf("");
  const ErrorStats p = compare_matrix<float>(n, n, poisoned.data(), n, ref.data(), n);
  EXPECT_EQ(p.non_finite, 1U);
  EXPECT_FALSE(p.within(tol));

  // One element off by 0.005 in a million: invisible in the norm, caught per element.
  auto one_wrong = x;
  one_wrong[12345] += 0.005F;
  const ErrorStats w = compare_matrix<float>(n, n, one_wrong.data(), n, ref.data(), n);
  EXPECT_LT(w.relative, tol);
  EXPECT_FALSE(w.within(tol));
}

// Simulates what a correct FP32 kernel does (a float accumulator over K products) and what a
// typical defect does (one K-step of 8 products lost), and checks the tolerance separates them.
TEST(Verify, ToleranceAcceptsFp32RoundingAndRejectsAMissingKStep) {
  for (const int k : {1, 17, 999, 4096, 8192}) {
    const int m = 16;
    const int n = 64;
    std::mt19937 gen(static_cast<unsigned>(k));
    std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
    std::vector<float> a(static_cast<std::size_t>(m) * k);
    std::vector<float> b(static_cast<std::size_t>(k) * n);
    for (auto& v : a) v = dist(gen);
    for (auto& v : b) v = dist(gen);
    std::vector<double> ref(static_cast<std::size_t>(m) * n);
    matmul::reference_gemm(m, n, k, 1.0, a.data(), k, b.data(), n, 0.0, nullptr, n, ref.data(), n);
    std::vector<float> honest(ref.size());
    std::vector<float> defective(ref.size());
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        float acc = 0.0F;
        float acc_missing = 0.0F;
        for (int p = 0; p < k; ++p) {
          const float prod = a[static_cast<std::size_t>(i) * k + p] * b[static_cast<std::size_t>(p) * n + j];
          acc += prod;
          if (p >= 8 || k <= 8) acc_missing += prod;
        }
        honest[static_cast<std::size_t>(i) * n + j] = acc;
        defective[static_cast<std::size_t>(i) * n + j] = k <= 8 ? acc + 1.0F : acc_missing;
      }
    }
    const double tol = matmul::relative_tolerance(k);
    const ErrorStats good = compare_matrix<float>(m, n, honest.data(), n, ref.data(), n);
    EXPECT_TRUE(good.within(tol)) << "k=" << k << " error " << good.relative << " tol " << tol;
    EXPECT_LT(good.relative, tol / 3) << "k=" << k << ": the margin should be wide";
    const ErrorStats bad = compare_matrix<float>(m, n, defective.data(), n, ref.data(), n);
    EXPECT_FALSE(bad.within(tol)) << "k=" << k << " error " << bad.relative;
  }
}

TEST(Verify, ToleranceGrowsLikeTheSquareRootOfK) {
  EXPECT_LT(matmul::relative_tolerance(1), 1e-6);
  EXPECT_NEAR(matmul::relative_tolerance(4096) / matmul::relative_tolerance(1024), 2.0, 0.05);
  EXPECT_LT(matmul::relative_tolerance(65536), 2e-4);  // far below any real defect
}

// The scan's check: integers wrap modulo 2^32 and must match exactly; a float scan in float
// (one rounding per element, the longest chain a step uses) passes, and an element dropped from
// the middle of 2^20 fails.
TEST(ScanCheck, ExactWrappingIntegersAndFloatsWithinTolerance) {
  const std::vector<std::int32_t> ints{INT32_MAX, 1, -5, INT32_MIN, 7};
  std::vector<std::int32_t> inclusive(ints.size());
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < ints.size(); ++i) inclusive[i] = static_cast<std::int32_t>(sum += static_cast<std::uint32_t>(ints[i]));
  EXPECT_TRUE(scan::check_scan<std::int32_t>(ints, inclusive, scan::Kind::inclusive).verified);
  EXPECT_FALSE(scan::check_scan<std::int32_t>(ints, inclusive, scan::Kind::exclusive).verified);
  std::vector<std::int32_t> exclusive{0, INT32_MAX, INT32_MIN, static_cast<std::int32_t>(0x7FFFFFFBU), -5};
  EXPECT_TRUE(scan::check_scan<std::int32_t>(ints, exclusive, scan::Kind::exclusive).verified);
  exclusive[3] += 1;
  const auto wrong = scan::check_scan<std::int32_t>(ints, exclusive, scan::Kind::exclusive);
  EXPECT_FALSE(wrong.verified);
  EXPECT_EQ(wrong.first_bad, 3U);

  const std::size_t n = std::size_t{1} << 20;
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  std::vector<float> in(n);
  for (auto& x : in) x = dist(gen);
  std::vector<float> out(n);
  float running = 0.0F;
  for (std::size_t i = 0; i < n; ++i) out[i] = running += in[i];
  const auto honest = scan::check_scan<float>(in, out, scan::Kind::inclusive);
  EXPECT_TRUE(honest.verified) << honest.max_error;
  // An element of magnitude near 1 dropped (smaller ones hide under the tolerance at this n:
  // the integer scans, with the same kernels, catch any element lost).
  std::size_t drop = n / 2;
  while (std::abs(in[drop]) < 0.9F) ++drop;
  for (std::size_t i = drop; i < n; ++i) out[i] -= in[drop];
  const auto dropped = scan::check_scan<float>(in, out, scan::Kind::inclusive);
  EXPECT_FALSE(dropped.verified);
  EXPECT_EQ(dropped.first_bad, drop);
}

TEST(ScanCheck, OverlappingArraysAreRefusedAndInPlaceIsAccepted) {
  std::vector<float> buffer(100);
  EXPECT_NO_THROW(scan::validate<float>({buffer.data(), buffer.data(), 100}));
  EXPECT_NO_THROW(scan::validate<float>({buffer.data(), buffer.data() + 50, 50}));
  EXPECT_THROW(scan::validate<float>({buffer.data(), buffer.data() + 10, 50}), std::invalid_argument);
  EXPECT_THROW(scan::validate<float>({nullptr, buffer.data(), 5}), std::invalid_argument);
  EXPECT_NO_THROW(scan::validate<float>({nullptr, nullptr, 0}));
}

// Refused in validation, before any device work: no GPU is needed to see it.
TEST(HistogramArgs, BadArgumentsAreRefusedBeforeAnyWork) {
  std::vector<float> host(4);
  std::uint32_t counts[4];
  const auto& v = histogram::find("shared_atomics");
  EXPECT_THROW(histogram::run<float>(v, {.samples = host.data(), .n = 4, .counts = counts, .bins = 0}, {}),
               std::invalid_argument);
  EXPECT_THROW(histogram::run<float>(v, {.samples = host.data(), .n = 4, .counts = counts, .bins = 65537}, {}),
               std::invalid_argument);
  EXPECT_THROW(histogram::run<float>(
                   v, {.samples = host.data(), .n = 4, .counts = counts, .bins = 8, .lower = 1, .upper = 1}, {}),
               std::invalid_argument);
  EXPECT_THROW(histogram::run<float>(v, {.samples = host.data(), .n = std::size_t{1} << 32, .counts = counts}, {}),
               std::invalid_argument);
  EXPECT_THROW(histogram::run<std::uint8_t>(v, {.samples = nullptr, .n = 4, .counts = counts}, {}),
               std::invalid_argument);
  // A float range whose width overflows, and samples off their type's alignment.
  EXPECT_THROW(histogram::run<float>(v,
                                     {.samples = host.data(), .n = 4, .counts = counts, .bins = 8,
                                      .lower = -3e38F, .upper = 3e38F},
                                     {}),
               std::invalid_argument);
  const auto* misaligned = reinterpret_cast<const float*>(reinterpret_cast<const char*>(host.data()) + 1);
  EXPECT_THROW(histogram::run<float>(v, {.samples = misaligned, .n = 2, .counts = counts, .bins = 8}, {}),
               std::invalid_argument);
}


// The even bins' rule on hand-computed cases: edges, the last bin's rounding, NaN, infinities.
TEST(HistogramArgs, EvenBinsFollowTheDocumentedRule) {
  EXPECT_EQ(histogram::bin_of(0.0F, 0.0F, 1.0F, 4), 0);
  EXPECT_EQ(histogram::bin_of(0.25F, 0.0F, 1.0F, 4), 1);
  EXPECT_EQ(histogram::bin_of(std::nextafter(1.0F, 0.0F), 0.0F, 1.0F, 4), 3);
  EXPECT_EQ(histogram::bin_of(1.0F, 0.0F, 1.0F, 4), -1);
  EXPECT_EQ(histogram::bin_of(-0.0F, 0.0F, 1.0F, 4), 0);
  EXPECT_EQ(histogram::bin_of(std::nanf(""), 0.0F, 1.0F, 4), -1);
  EXPECT_EQ(histogram::bin_of(-INFINITY, 0.0F, 1.0F, 4), -1);
  // 0.1 in [0, 0.3) with 3 bins: (0.1 - 0) * (3 / 0.3) rounds to 1.0000001 in float: bin 1.
  EXPECT_EQ(histogram::bin_of(0.1F, 0.0F, 0.3F, 3), static_cast<int>(0.1F * (3.0F / 0.3F)));
}

// Where the scaled offset first reaches the bin count: the float before it does not, and none
// does where the scale is a power of two over [0, 1).
TEST(HistogramArgs, TheFirstFloatPastTheLastBinIsFound) {
  using histogram::detail::even_bins;
  using histogram::detail::first_past_the_end;
  for (const auto& b : {even_bins(-2.0F, 2.0F, 1024), even_bins(-1.5F, 2.25F, 1000), even_bins(0.0F, 0.3F, 3),
                        even_bins(-2.0F, 2.0F, 65536)}) {
    const float first = first_past_the_end(b);
    const auto scaled = [&](float x) { return (x - b.lower) * b.scale; };
    if (first < b.upper) {
      EXPECT_GE(scaled(first), static_cast<float>(b.bins)) << b.lower << " " << b.upper << " " << b.bins;
      EXPECT_LT(scaled(std::nextafter(first, b.lower)), static_cast<float>(b.bins));
      EXPECT_EQ(histogram::bin_of(first, b.lower, b.upper, b.bins), b.bins - 1);  // clamped
    } else {
      EXPECT_LT(scaled(std::nextafter(b.upper, b.lower)), static_cast<float>(b.bins));
    }
  }
  EXPECT_EQ(first_past_the_end(even_bins(0.0F, 1.0F, 1024)), 1.0F);
  EXPECT_LT(first_past_the_end(even_bins(-2.0F, 2.0F, 1024)), 2.0F);  // 2 - 2^-23 + 2 rounds to 4
}
