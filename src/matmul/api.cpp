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
  // Teaching order; the reference first. A new variant: one file, one line here.
  static const std::array table{
      detail::cublas_variant(),
      detail::naive_variant(),
      detail::tiled_static_variant_16(),
      detail::tiled_static_variant_32(),
      detail::tiled_dynamic_const_variant(),
      detail::tiled_dynamic_runtime_variant(),
      detail::bank_conflict_variant(),
      detail::bank_conflict_padded_variant(),
      detail::thread_tile_1d_variant(),
      detail::thread_tile_2d_variant(),
      detail::vectorized_variant(),
      detail::conflict_free_variant(),
      detail::warp_tile_variant(),
      detail::pipelined_variant(),
      detail::rasterized_variant(),
      detail::autotuned_variant(),
  };
  return table;
}

const GemmVariant& find(std::string_view name) {
  for (const auto& v : variants())
    if (v.info.name == name) return v;
  throw UsageError(fmt::format("unknown matmul variant '{}' (see 'smemlab list')", name));
}

void gemm(const GemmVariant& variant, const GemmArgs& args, const LaunchContext& ctx) {
  validate(args);
  variant.launch(args, ctx);
}

}  // namespace smemlab::matmul
