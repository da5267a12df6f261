#include "core/gemm_operands.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace smemlab {

void validate_gemm_operands(const GemmOperands& g) {
  const auto fail = [](const std::string& message) { throw std::invalid_argument("gemm: " + message); };
  if (g.m < 1 || g.n < 1 || g.k < 1)
    fail(fmt::format("m, n and k must be at least 1 (got {}, {}, {})", g.m, g.n, g.k));
  if (g.lda < g.k) fail(fmt::format("lda ({}) must be at least k ({})", g.lda, g.k));
  if (g.ldb < g.n) fail(fmt::format("ldb ({}) must be at least n ({})", g.ldb, g.n));
  if (g.ldc < g.n) fail(fmt::format("ldc ({}) must be at least n ({})", g.ldc, g.n));
  if (g.a == nullptr || g.b == nullptr || g.c == nullptr) fail("null matrix pointer");
}

}  // namespace smemlab
