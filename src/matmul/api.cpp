#include <array>

#include "core/gemm_operands.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul {

void validate(const GemmArgs& g) {
  validate_gemm_operands({g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, g.c, g.ldc});
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
  in_routine("matmul::gemm(" + std::string(variant.info.name) + ")", [&] { variant.launch.run(args, ctx); });
}

}  // namespace smemlab::matmul
