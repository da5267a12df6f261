#pragma once
// Even bins over [lower, upper), computed the same way on the host (the reference) and on the
// device (every kernel): smemlab/histogram.hpp gives the rule.
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SMEMLAB_HOST_DEVICE __host__ __device__
#else
#define SMEMLAB_HOST_DEVICE
#endif

namespace smemlab::histogram::detail {

struct EvenBins {
  float lower = 0.0F;
  float upper = 1.0F;
  float scale = 1.0F;  // bins / (upper - lower), in float
  int bins = 1;
};

inline EvenBins even_bins(float lower, float upper, int bins) {
  return {lower, upper, static_cast<float>(bins) / (upper - lower), bins};
}

// (x - lower) * scale: a subtraction, then a product, each rounded (no fused multiply-add can
// form, the product's operand being the difference).
SMEMLAB_HOST_DEVICE inline int even_bin(float x, const EvenBins& b) {
  if (!(x >= b.lower && x < b.upper)) return -1;  // NaN fails both comparisons
  const float scaled = (x - b.lower) * b.scale;
  const int bin = static_cast<int>(scaled);
  return bin < b.bins ? bin : b.bins - 1;
}

// The first float of [lower, upper) whose (x - lower) * scale rounds to the bin count or more
// (the rule clamps it to the last bin; CUB would not); upper when there is none, as for [0, 1)
// with a power-of-two bin count. Host code: a bisection over the floats of the range.
inline float first_past_the_end(const EvenBins& b) {
  const auto past = [&](float x) { return (x - b.lower) * b.scale >= static_cast<float>(b.bins); };
  float hi = std::nextafter(b.upper, b.lower);
  if (!past(hi)) return b.upper;
  float lo = b.lower;  // not past: (lower - lower) * scale = 0
  while (std::nextafter(lo, hi) != hi) {
    float mid = static_cast<float>(0.5 * (static_cast<double>(lo) + static_cast<double>(hi)));
    if (mid == lo || mid == hi) mid = std::nextafter(lo, hi);
    (past(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace smemlab::histogram::detail
