#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "smemlab/error.hpp"
#include "transpose/variants.hpp"

namespace smemlab::transpose {

template <class T>
void validate(const Args<T>& a) {
  const auto fail = [](std::string message) { throw std::invalid_argument("transpose: " + message); };
  if (a.rows < 1 || a.cols < 1) fail(fmt::format("rows and cols must be at least 1 (got {}, {})", a.rows, a.cols));
  if (a.ld_in < a.cols) fail(fmt::format("ld_in ({}) must be at least cols ({})", a.ld_in, a.cols));
  if (a.ld_out < a.rows) fail(fmt::format("ld_out ({}) must be at least rows ({})", a.ld_out, a.rows));
  if (a.in == nullptr || a.out == nullptr) fail("null matrix pointer");
}

template void validate<float>(const Args<float>&);
template void validate<double>(const Args<double>&);

std::span<const TransposeVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  // Each variant runs the element types its launch has entry points for.
  static const auto table =
      with_dtypes(std::array{SMEMLAB_TRANSPOSE_STEPS(SMEMLAB_MAKE_STEP)},
                  [](const TransposeOps& ops, DType type) { return type == DType::f32 ? ops.f32 != nullptr : ops.f64 != nullptr; });
#undef SMEMLAB_MAKE_STEP
  return table;
}

const TransposeVariant& find(std::string_view name) { return find_variant(variants(), name); }

template <class T>
void run(const TransposeVariant& variant, const Args<T>& args, const LaunchContext& ctx) {
  validate(args);
  in_routine("transpose::run(" + std::string(variant.info.name) + ")", [&] { launch_of<T>(variant)(args, ctx); });
}

template void run<float>(const TransposeVariant&, const Args<float>&, const LaunchContext&);
template void run<double>(const TransposeVariant&, const Args<double>&, const LaunchContext&);

}  // namespace smemlab::transpose
