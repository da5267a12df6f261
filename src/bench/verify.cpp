#include "bench/verify.hpp"

#include <cmath>

namespace smemlab {

template <class T>
ErrorStats compare_matrix(std::size_t rows, std::size_t cols, const T* x, std::size_t ldx,
                          const double* ref, std::size_t ldr) {
  ErrorStats stats;
  double diff_sq = 0.0;
  double ref_sq = 0.0;
  double max_diff = 0.0;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = static_cast<double>(x[r * ldx + c]);
      const double want = ref[r * ldr + c];
      if (!std::isfinite(v)) {
        ++stats.non_finite;
        continue;
      }
      const double d = std::abs(v - want);
      diff_sq += d * d;
      ref_sq += want * want;
      max_diff = std::max(max_diff, d);
    }
  }
  const double count = static_cast<double>(rows * cols);
  if (stats.non_finite > 0) {
    stats.relative = stats.max_element = std::numeric_limits<double>::infinity();
  } else if (ref_sq == 0.0) {
    // An all-zero reference: any difference at all is wrong.
    stats.relative = stats.max_element =
        max_diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  } else {
    stats.relative = std::sqrt(diff_sq / ref_sq);
    stats.max_element = max_diff / std::sqrt(ref_sq / count);
  }
  return stats;
}

template ErrorStats compare_matrix<float>(std::size_t, std::size_t, const float*, std::size_t,
                                          const double*, std::size_t);
template ErrorStats compare_matrix<double>(std::size_t, std::size_t, const double*, std::size_t,
                                           const double*, std::size_t);

}  // namespace smemlab
