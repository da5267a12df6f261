// The CPU reference: every product and sum in double, so its own rounding error (about 1e-16
// relative) is negligible beside the FP32 kernels' it judges.
#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "smemlab/matmul.hpp"

namespace smemlab::matmul {

void reference_gemm(int m, int n, int k, double alpha, const float* a, int lda, const float* b,
                    int ldb, double beta, const float* c_in, int ldc, double* out, int ldo) {
  const auto rows = [&](int first, int step) {
    std::vector<double> acc(static_cast<std::size_t>(n));
    for (int i = first; i < m; i += step) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const float* a_row = a + static_cast<std::size_t>(i) * lda;
      for (int p = 0; p < k; ++p) {  // i-p-j order: unit stride through B and acc
        const double a_ip = a_row[p];
        const float* b_row = b + static_cast<std::size_t>(p) * ldb;
        for (int j = 0; j < n; ++j) acc[j] += a_ip * static_cast<double>(b_row[j]);
      }
      double* o = out + static_cast<std::size_t>(i) * ldo;
      if (beta == 0.0) {  // C_in is not read, as in BLAS: it may be null or hold NaN
        for (int j = 0; j < n; ++j) o[j] = alpha * acc[j];
      } else {
        const float* c = c_in + static_cast<std::size_t>(i) * ldc;
        for (int j = 0; j < n; ++j) o[j] = alpha * acc[j] + beta * static_cast<double>(c[j]);
      }
    }
  };
  const int workers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, m);
  std::vector<std::jthread> pool;
  for (int t = 1; t < workers; ++t) pool.emplace_back(rows, t, workers);
  rows(0, workers);
}

double relative_tolerance(int k) {
  // FP32 unit roundoff u = 2^-24. Summing K products of random signed inputs, the rounding
  // errors add like a random walk: the expected norm-wise relative error of C is about
  // 0.7 u sqrt(K) (the worst case, K u, needs every error to point the same way). Tiled and
  // split-K orders only lower it; alpha and beta add a few roundings. We accept 8 u sqrt(K)
  // + 8 u: over ten times the expected error, while a real defect (a missing or repeated
  // K-step, a wrong element) moves the error by orders of magnitude more.
  constexpr double kUnitRoundoff = 0x1.0p-24;
  return kUnitRoundoff * (8.0 * std::sqrt(static_cast<double>(k)) + 8.0);
}

}  // namespace smemlab::matmul
