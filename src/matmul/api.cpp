#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul {

void validate(const GemmArgs& g) {
  const auto fail = [](std::string message) { throw std::invalid_argument("gemm: " + message); };
  if (g.m < 1 || g.n < 1 || g.k < 1)
    fail(fmt::format("m, n and k must be at least 1 (got {}, {}, {})", g.m, g.n, g.k));
  if (g.lda < g.k) fail(fmt::format("lda ({}) must be at least k ({})", g.lda, g.k));
  if (g.ldb < g.n) fail(fmt::format("ldb ({}) must be at least n ({})", g.ldb, g.n));
  if (g.ldc < g.n) fail(fmt::format("ldc ({}) must be at least n ({})", g.ldc, g.n));
  if (g.a == nullptr || g.b == nullptr || g.c == nullptr) fail("null matrix pointer");
}

std::span<const GemmVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const std::array table{SMEMLAB_MATMUL_STEPS(SMEMLAB_MAKE_STEP)};
#undef SMEMLAB_MAKE_STEP
  return table;
}

const GemmVariant& find(std::string_view name) { return find_variant(variants(), name); }

std::size_t workspace_bytes(const GemmVariant& variant, const GemmArgs& args) {
  return variant.launch.workspace_bytes == nullptr ? 0 : variant.launch.workspace_bytes(args);
}

void gemm(const GemmVariant& variant, const GemmArgs& args, const LaunchContext& ctx) {
  validate(args);
  variant.launch.run(args, ctx);
}

}  // namespace smemlab::matmul
