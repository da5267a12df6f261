#include <array>
#include <stdexcept>
#include <string>

#include "core/copy_rows.hpp"
#include "core/gemm_operands.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul {

namespace {

GemmOperands operands_of(const GemmArgs& g) {
  return {g.m, g.n, g.k, g.a, g.lda, g.b, g.ldb, g.c, g.ldc, g.transpose_a, g.transpose_b};
}

// The arguments a variant that reads row-major operands only is given: copies of the operands
// stored transposed (their rows on 128-byte lines, their start on a 256-byte boundary: an
// address standing for it here) and the workspace past them.
GemmArgs as_copied(const GemmArgs& g) {
  alignas(256) static constexpr float kAlignedStart[1] = {};
  GemmArgs out = g;
  if (g.transpose_a) {
    out.a = kAlignedStart;
    out.lda = smemlab::detail::line_aligned_ld(g.k, sizeof(float));
  }
  if (g.transpose_b) {
    out.b = kAlignedStart;
    out.ldb = smemlab::detail::line_aligned_ld(g.n, sizeof(float));
  }
  out.transpose_a = out.transpose_b = false;
  return out;
}

}  // namespace

void validate(const GemmArgs& g) { validate_gemm_operands(operands_of(g)); }

std::span<const GemmVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const std::array table{SMEMLAB_MATMUL_STEPS(SMEMLAB_MAKE_STEP)};
#undef SMEMLAB_MAKE_STEP
  return table;
}

const GemmVariant& find(std::string_view name) { return find_variant(variants(), name); }

std::size_t workspace_bytes(const GemmVariant& variant, const GemmArgs& args) {
  const auto own = [&](const GemmArgs& g) {
    return variant.launch.workspace_bytes == nullptr ? 0 : variant.launch.workspace_bytes(g);
  };
  if (variant.info.reads_transposed || (!args.transpose_a && !args.transpose_b)) return own(args);
  return smemlab::detail::row_major_copy_bytes(operands_of(args), sizeof(float)) + own(as_copied(args));
}

void gemm(const GemmVariant& variant, const GemmArgs& args, const LaunchContext& ctx) {
  validate(args);
  if (args.workspace != nullptr && args.workspace_size < workspace_bytes(variant, args))
    throw std::invalid_argument("gemm: workspace of " + std::to_string(args.workspace_size) +
                                " bytes is smaller than the " + std::to_string(workspace_bytes(variant, args)) +
                                " needed");
  in_routine("matmul::gemm(" + std::string(variant.info.name) + ")", [&] {
    if (variant.info.reads_transposed || (!args.transpose_a && !args.transpose_b)) {
      variant.launch.run(args, ctx);
      return;
    }
    const smemlab::detail::RowMajorOperands copies(operands_of(args), sizeof(float), args.workspace,
                                                   args.workspace_size, ctx.stream);
    GemmArgs plain = args;
    plain.a = static_cast<const float*>(copies.operands().a);
    plain.lda = copies.operands().lda;
    plain.b = static_cast<const float*>(copies.operands().b);
    plain.ldb = copies.operands().ldb;
    plain.transpose_a = plain.transpose_b = false;
    plain.workspace = copies.rest();
    plain.workspace_size = copies.rest_size();
    variant.launch.run(plain, ctx);
  });
}

}  // namespace smemlab::matmul
