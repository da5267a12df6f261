// 02 — the CPU reference every variant is checked against: Neumaier's compensated summation
// in double. The compensation carries the low-order bits each addition rounds away, so the
// error stays near one rounding of the result whatever n is.
#include <cmath>

#include "reduce/variants.hpp"

namespace smemlab::reduce {

template <class T>
ReferenceSum reference_sum(const T* in, std::size_t n) {
  double sum = 0.0;
  double compensation = 0.0;
  double abs_sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = in[i];
    const double t = sum + x;
    // Whichever operand is smaller lost bits in t; recover them.
    compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
    abs_sum += std::abs(x);
  }
  return {sum + compensation, abs_sum};
}

template ReferenceSum reference_sum<float>(const float*, std::size_t);
template ReferenceSum reference_sum<double>(const double*, std::size_t);

template <class T>
double tolerance(std::size_t n) {
  // Any summation order's error is at most u * (sum over its additions of |partial sum|). For
  // inputs of random sign the partial sums, and the rounding errors, behave like random walks,
  // so the error is about u * sqrt(n) * sum|x| / n or less for every order used here (sequential
  // per thread, trees across threads). We accept u * (4 sqrt(n) + 16), u the unit roundoff of T:
  // generous for the expected error, still far below what a lost or doubled chunk of the input
  // costs on the test sizes (at least 1/n of sum|x|, times a few). Structured inputs (constant
  // values, where rounding does not average out) are tested separately.
  const double unit_roundoff = sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53;
  return unit_roundoff * (4.0 * std::sqrt(static_cast<double>(n)) + 16.0);
}

template double tolerance<float>(std::size_t);
template double tolerance<double>(std::size_t);

namespace detail {
namespace {

template <class T>
T cpu_reference_sum(const T* in, std::size_t n) {
  return static_cast<T>(reference_sum(in, n).sum);
}

}  // namespace

ReduceVariant cpu_reference_variant() {
  return {{.family = "reduction",
           .name = "cpu_reference",
           .description = "CPU, Neumaier-compensated summation in double: the check for all others",
           .technique = "compensated summation: the rounding error of each addition is carried",
           .smem = SmemKind::none,
           .why_no_model = "runs on the CPU"},
          {.f32 = {.host = cpu_reference_sum<float>}, .f64 = {.host = cpu_reference_sum<double>}}};
}

}  // namespace detail
}  // namespace smemlab::reduce
