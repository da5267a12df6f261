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
  // The steps in teaching order, the reference first. A new variant: its file, one line here.
  static const auto table = with_dtypes(std::array{
      detail::cub_variant(),                    // 00 cub::DeviceReduce::Sum: the reference
      detail::cpu_float_variant(),              // 01 a float loop on the CPU: big eats small
      detail::cpu_reference_variant(),          // 02 compensated double sum on the CPU
      detail::global_memory_variant(),          // 03 halving in global memory
      detail::shared_static_variant(),          // 04 halving in static shared memory
      detail::shared_dynamic_variant(),         // 05 the same in dynamic shared memory
      detail::interleaved_divergent_variant(),  // 06 interleaved pairs: divergent warps
      detail::interleaved_strided_variant(),    // 07 strided index: bank conflicts instead
      detail::sequential_variant(),             // 08 sequential pairs: neither
      detail::first_add_variant(),              // 09 the first add while loading
      detail::warp_shuffle_variant(),           // 10 the last warp by shuffles
      detail::grid_stride_variant(),            // 11 persistent blocks, grid-stride loads
      detail::vectorized_variant(),             // 12 16-byte loads
      detail::single_pass_variant(),            // 13 one launch: the last block adds the sums
  });
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
