#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "reduce/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::reduce {

std::span<const ReduceVariant> variants() {
  // Teaching order; the reference first. A new variant: one file, one line here.
  static const std::array table{
      detail::cub_variant(),
      detail::cpu_float_variant(),
      detail::cpu_reference_variant(),
      detail::global_memory_variant(),
      detail::shared_static_variant(),
      detail::shared_dynamic_variant(),
      detail::interleaved_divergent_variant(),
      detail::interleaved_strided_variant(),
      detail::sequential_variant(),
      detail::first_add_variant(),
      detail::warp_shuffle_variant(),
      detail::grid_stride_variant(),
      detail::vectorized_variant(),
      detail::single_pass_variant(),
  };
  return table;
}

const ReduceVariant& find(std::string_view name) {
  for (const auto& v : variants())
    if (v.info.name == name) return v;
  throw UsageError(fmt::format("unknown reduction variant '{}' (see 'smemlab list')", name));
}

template <class T>
void sum(const ReduceVariant& variant, const T* in, std::size_t n, T* out, void* workspace,
         cudaStream_t stream) {
  const Ops<T>& o = ops<T>(variant);
  if (o.device == nullptr)
    throw std::invalid_argument(fmt::format("reduce: {} has no device entry for this type", variant.info.name));
  if (out == nullptr || (n > 0 && in == nullptr)) throw std::invalid_argument("reduce: null pointer");
  if (workspace == nullptr && o.workspace_bytes(n) > 0)
    throw std::invalid_argument("reduce: this variant needs a workspace");
  o.device(in, n, out, workspace, stream);
}

template void sum<float>(const ReduceVariant&, const float*, std::size_t, float*, void*, cudaStream_t);
template void sum<double>(const ReduceVariant&, const double*, std::size_t, double*, void*, cudaStream_t);

}  // namespace smemlab::reduce
