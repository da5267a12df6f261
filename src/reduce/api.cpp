#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "reduce/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::reduce {

std::span<const ReduceVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  // Each variant runs the element types its launch has entry points for.
  static const auto table =
      with_dtypes(std::array{SMEMLAB_REDUCE_STEPS(SMEMLAB_MAKE_STEP)},
                  [](const ReduceOps& ops, DType type) { return type == DType::f32 ? ops.f32.exists() : ops.f64.exists(); });
#undef SMEMLAB_MAKE_STEP
  return table;
}

const ReduceVariant& find(std::string_view name) { return find_variant(variants(), name); }

template <class T>
void sum(const ReduceVariant& variant, const Args<T>& a, const LaunchContext& ctx) {
  const Ops<T>& o = ops<T>(variant);
  if (o.device == nullptr)
    throw std::invalid_argument(fmt::format("reduce: {} has no device entry for this type", variant.info.name));
  if (a.out == nullptr || (a.n > 0 && a.in == nullptr)) throw std::invalid_argument("reduce: null pointer");
  if (a.workspace == nullptr && o.workspace_bytes(a.n) > 0)
    throw std::invalid_argument("reduce: this variant needs a workspace");
  in_routine("reduce::sum(" + std::string(variant.info.name) + ")",
             [&] { o.device(a.in, a.n, a.out, a.workspace, ctx.stream); });
}

template void sum<float>(const ReduceVariant&, const Args<float>&, const LaunchContext&);
template void sum<double>(const ReduceVariant&, const Args<double>&, const LaunchContext&);

}  // namespace smemlab::reduce
