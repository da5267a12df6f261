#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "reduce/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::reduce {

namespace {

// A variant runs the element types it has entry points for.
template <std::size_t N>
std::array<ReduceVariant, N> with_dtypes(std::array<ReduceVariant, N> table) {
  for (auto& v : table) v.info.dtypes = dtypes_for(v.launch.f32.exists(), v.launch.f64.exists());
  return table;
}

}  // namespace

std::span<const ReduceVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const auto table = with_dtypes(std::array{SMEMLAB_REDUCE_STEPS(SMEMLAB_MAKE_STEP)});
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
  o.device(a.in, a.n, a.out, a.workspace, ctx.stream);
}

template void sum<float>(const ReduceVariant&, const Args<float>&, const LaunchContext&);
template void sum<double>(const ReduceVariant&, const Args<double>&, const LaunchContext&);

}  // namespace smemlab::reduce
