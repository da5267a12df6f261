#include <fmt/format.h>

#include <array>
#include <cmath>
#include <stdexcept>

#include "histogram/binning.hpp"
#include "histogram/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::histogram {

template <class T>
void validate(const Args<T>& a) {
  const auto fail = [](const std::string& message) { throw std::invalid_argument("histogram: " + message); };
  if (a.n >= (std::size_t{1} << 32))
    fail(fmt::format("n ({}) must be below 2^32: the counts are 32-bit", a.n));
  if (a.counts == nullptr) fail("null counts pointer");
  if (a.n > 0 && a.samples == nullptr) fail("null samples pointer");
  if (reinterpret_cast<std::uintptr_t>(a.samples) % alignof(T) != 0) fail("samples not aligned to their type");
  if constexpr (std::is_same_v<T, float>) {
    if (a.bins < 1 || a.bins > kMaxBins) fail(fmt::format("bins must be 1 to {} (got {})", kMaxBins, a.bins));
    if (!(std::isfinite(a.lower) && std::isfinite(a.upper) && a.lower < a.upper))
      fail(fmt::format("the range [{}, {}) must be finite and not empty", a.lower, a.upper));
    if (!std::isfinite(a.upper - a.lower) || !std::isfinite(static_cast<float>(a.bins) / (a.upper - a.lower)))
      fail(fmt::format("the range [{}, {}) is too wide for float", a.lower, a.upper));
  } else {
    if (a.bins != 256) fail(fmt::format("bytes have 256 bins, one per value (got {})", a.bins));
  }
}

template void validate<std::uint8_t>(const Args<std::uint8_t>&);
template void validate<float>(const Args<float>&);

std::span<const HistogramVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const auto table = [] {
    auto steps = std::array{SMEMLAB_HISTOGRAM_STEPS(SMEMLAB_MAKE_STEP)};
    for (auto& v : steps) v.info.dtypes = kHistogramTypes;  // every step has both entry points
    return steps;
  }();
#undef SMEMLAB_MAKE_STEP
  return table;
}

const HistogramVariant& find(std::string_view name) { return find_variant(variants(), name); }

template <class T>
void run(const HistogramVariant& variant, const Args<T>& a, const LaunchContext& ctx) {
  validate(a);
  if (const std::string why = variant.info.why_unavailable(); !why.empty())
    throw std::invalid_argument(fmt::format("histogram: {} cannot run here: {}", variant.info.name, why));
  const Ops<T>& o = ops<T>(variant);
  if (a.workspace == nullptr && o.workspace_bytes(a.n, a.bins) > 0)
    throw std::invalid_argument("histogram: this variant needs a workspace");
  in_routine("histogram::run(" + std::string(variant.info.name) + ")", [&] { o.device(a, ctx.stream); });
}

template void run<std::uint8_t>(const HistogramVariant&, const Args<std::uint8_t>&, const LaunchContext&);
template void run<float>(const HistogramVariant&, const Args<float>&, const LaunchContext&);

int bin_of(float x, float lower, float upper, int bins) {
  return detail::even_bin(x, detail::even_bins(lower, upper, bins));
}

template <class T>
Counts reference_counts(std::span<const T> samples, int bins, float lower, float upper) {
  const detail::EvenBins even = detail::even_bins(lower, upper, bins);
  Counts c{std::vector<std::uint32_t>(static_cast<std::size_t>(bins), 0), 0};
  for (const T x : samples) {
    int b = 0;
    if constexpr (std::is_same_v<T, float>) {
      b = detail::even_bin(x, even);
    } else {
      b = x;
    }
    if (b >= 0) {
      ++c.bins[static_cast<std::size_t>(b)];
    } else {
      ++c.dropped;
    }
  }
  return c;
}

template Counts reference_counts<std::uint8_t>(std::span<const std::uint8_t>, int, float, float);
template Counts reference_counts<float>(std::span<const float>, int, float, float);

}  // namespace smemlab::histogram
