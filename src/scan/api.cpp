#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "scan/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::scan {

template <class T>
void validate(const Args<T>& a) {
  const auto fail = [](const std::string& message) { throw std::invalid_argument("scan: " + message); };
  if (a.n == 0) return;
  if (a.in == nullptr || a.out == nullptr) fail("null array pointer");
  const auto in = reinterpret_cast<std::uintptr_t>(a.in);
  const auto out = reinterpret_cast<std::uintptr_t>(a.out);
  const std::uintptr_t bytes = a.n * sizeof(T);
  if (in != out && in < out + bytes && out < in + bytes)
    fail("in and out overlap without being the same array (in place means out == in)");
}

template void validate<std::int32_t>(const Args<std::int32_t>&);
template void validate<float>(const Args<float>&);

std::span<const ScanVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const auto table = [] {
    auto steps = std::array{SMEMLAB_SCAN_STEPS(SMEMLAB_MAKE_STEP)};
    for (auto& v : steps) v.info.dtypes = kScanTypes;  // every step has both entry points
    return steps;
  }();
#undef SMEMLAB_MAKE_STEP
  return table;
}

const ScanVariant& find(std::string_view name) { return find_variant(variants(), name); }

template <class T>
void run(const ScanVariant& variant, const Args<T>& a, const LaunchContext& ctx) {
  validate(a);
  const Ops<T>& o = ops<T>(variant);
  if (a.workspace == nullptr && o.workspace_bytes(a.n) > 0)
    throw std::invalid_argument("scan: this variant needs a workspace");
  in_routine("scan::run(" + std::string(variant.info.name) + ")",
             [&] { o.device(a.in, a.out, a.n, a.kind, a.workspace, ctx.stream); });
}

template void run<std::int32_t>(const ScanVariant&, const Args<std::int32_t>&, const LaunchContext&);
template void run<float>(const ScanVariant&, const Args<float>&, const LaunchContext&);

double tolerance(std::size_t n) {
  // Every step adds sums of contiguous runs of the input, each the difference of two prefixes,
  // so each rounding is at most u times twice the largest |prefix| so far (the scale). For
  // inputs of random sign the roundings behave like a random walk over the additions a prefix
  // goes through (at most about n of them), as for the reduction: we accept 4 sqrt(n) + 16 units
  // of u * scale. A lost or doubled element costs at least its own size, which at the test sizes
  // is many times that.
  return 4.0 * std::sqrt(static_cast<double>(n)) + 16.0;
}

template <class T>
ReferenceCheck check_scan(std::span<const T> in, std::span<const T> out, Kind kind) {
  const std::size_t n = in.size();
  ReferenceCheck result{.verified = out.size() == n, .max_error = 0.0, .first_bad = n};
  if (!result.verified) return result;
  if constexpr (std::is_same_v<T, std::int32_t>) {
    std::uint32_t sum = 0;  // wraps modulo 2^32, as the scan does
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t before = sum;
      sum += static_cast<std::uint32_t>(in[i]);
      if (static_cast<std::uint32_t>(out[i]) != (kind == Kind::exclusive ? before : sum)) {
        result = {.verified = false, .max_error = 0.0, .first_bad = i};
        return result;
      }
    }
  } else {
    constexpr double u = 0x1.0p-24;
    const double limit = tolerance(n);
    double sum = 0.0;
    double compensation = 0.0;
    double scale = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double before = sum + compensation;
      const double x = in[i];
      const double t = sum + x;
      compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;  // Neumaier
      sum = t;
      const double prefix = sum + compensation;
      scale = std::max({scale, std::abs(x), std::abs(prefix)});
      const double expected = kind == Kind::exclusive ? before : prefix;
      const double got = out[i];
      const double error = std::abs(got - expected) / (u * std::max(scale, 0x1.0p-126));
      if (!std::isfinite(got) || !(error <= limit)) {
        if (result.first_bad == n) result.first_bad = i;
        result.verified = false;
      }
      if (std::isfinite(error)) result.max_error = std::max(result.max_error, error);
    }
  }
  return result;
}

template ReferenceCheck check_scan<std::int32_t>(std::span<const std::int32_t>, std::span<const std::int32_t>,
                                                 Kind);
template ReferenceCheck check_scan<float>(std::span<const float>, std::span<const float>, Kind);

}  // namespace smemlab::scan
