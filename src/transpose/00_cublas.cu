// 00 — cublasSgeam / cublasDgeam, the reference: C = alpha * op(A) + beta * op(B) with op(A) = A^T,
// alpha = 1, beta = 0. In cuBLAS's column-major view the row-major input is its own transpose
// (cols x rows, leading dimension ld_in) and the row-major output is the rows x cols result
// (leading dimension ld_out), so one transposed geam does it.
#include <stdexcept>

#include "smemlab/error.hpp"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {
namespace {

cublasStatus_t geam(cublasHandle_t h, int m, int n, const float* alpha, const float* a, int lda,
                    const float* beta, float* c, int ldc) {
  return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, alpha, a, lda, beta, c, ldc, c, ldc);
}

cublasStatus_t geam(cublasHandle_t h, int m, int n, const double* alpha, const double* a, int lda,
                    const double* beta, double* c, int ldc) {
  return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, alpha, a, lda, beta, c, ldc, c, ldc);
}

template <class T>
struct Geam {
  static void launch(const Args<T>& a, const LaunchContext& ctx) {
    if (ctx.cublas == nullptr) throw std::invalid_argument("transpose: the cublas variant needs a handle");
    const T one = 1;
    const T zero = 0;  // B is C itself, unread with beta = 0 (allowed when ldb == ldc)
    SMEMLAB_CUBLAS_CHECK(cublasSetStream(ctx.cublas, ctx.stream));
    SMEMLAB_CUBLAS_CHECK(geam(ctx.cublas, a.rows, a.cols, &one, a.in, a.ld_in, &zero, a.out, a.ld_out));
  }
};

}  // namespace

TransposeVariant cublas_variant() {
  return {{.family = "transpose",
           .name = "cublas",
           .description = "cublasSgeam / cublasDgeam with the input transposed: the reference",
           .technique = "vendor library: what a user would call instead of writing a kernel",
           .smem = SmemKind::none,
           .reference = true,
           .why_no_model = "a vendor library: its kernels are not modelled"},
          both_types<Geam>()};
}

}  // namespace smemlab::transpose::detail
