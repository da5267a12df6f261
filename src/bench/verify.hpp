#pragma once
// Comparison of a computed matrix with a higher-precision reference.
#include <cstddef>
#include <limits>

namespace smemlab {

struct ErrorStats {
  double relative = std::numeric_limits<double>::quiet_NaN();  // ||x - ref||_F / ||ref||_F
  // Largest |x - ref| over the root-mean-square of ref: one wrong element among millions
  // barely moves the norm above, but stands out here.
  double max_element = std::numeric_limits<double>::quiet_NaN();
  std::size_t non_finite = 0;  // NaN or Inf in x: unwritten (poisoned) or broken outputs

  // Passes when every element is finite, the norm-wise error is within tol, and no single
  // element is off by more than element_factor * tol in units of the reference's RMS.
  [[nodiscard]] bool within(double tol, double element_factor = 10.0) const {
    return non_finite == 0 && relative <= tol && max_element <= element_factor * tol;
  }
};

// Compares rows x cols of x (leading dimension ldx) with ref (leading dimension ldr).
template <class T>
[[nodiscard]] ErrorStats compare_matrix(std::size_t rows, std::size_t cols, const T* x,
                                        std::size_t ldx, const double* ref, std::size_t ldr);

}  // namespace smemlab
