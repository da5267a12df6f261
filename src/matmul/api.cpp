#include <array>
#include <stdexcept>
#include <string>

#include "core/gemm_operands.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul {

void validate(const GemmArgs& g) { validate_gemm_operands(operands_of(g)); }

std::span<const GemmVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const std::array table{SMEMLAB_MATMUL_STEPS(SMEMLAB_MAKE_STEP)};
#undef SMEMLAB_MAKE_STEP
  return table;
}

const GemmVariant& find(std::string_view name) { return find_variant(variants(), name); }

std::size_t workspace_bytes(const GemmVariant& variant, const GemmArgs& call) {
  const GemmArgs args = smemlab::detail::with_row_vector_a(call, sizeof(float));  // as gemm reads it
  const auto own = [&](const GemmArgs& g) {
    return variant.launch.workspace_bytes == nullptr ? 0 : variant.launch.workspace_bytes(g);
  };
  if (variant.info.reads_transposed || (!args.transpose_a && !args.transpose_b)) return own(args);
  return smemlab::detail::row_major_copy_bytes(operands_of(args), sizeof(float)) +
         own(smemlab::detail::as_copied(args, sizeof(float)));
}

void gemm(const GemmVariant& variant, const GemmArgs& call, const LaunchContext& ctx) {
  validate(call);
  const GemmArgs args = smemlab::detail::with_row_vector_a(call, sizeof(float));
  if (args.workspace != nullptr && args.workspace_size < workspace_bytes(variant, args))
    throw std::invalid_argument("gemm: workspace of " + std::to_string(args.workspace_size) +
                                " bytes is smaller than the " + std::to_string(workspace_bytes(variant, args)) +
                                " needed");
  in_routine("matmul::gemm(" + std::string(variant.info.name) + ")", [&] {
    const auto run = [&](const GemmArgs& g) { variant.launch.run(g, ctx); };
    if (variant.info.reads_transposed) {
      run(args);
    } else {
      smemlab::detail::with_row_major_operands(args, sizeof(float), ctx.stream, run);
    }
  });
}

}  // namespace smemlab::matmul
