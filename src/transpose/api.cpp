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
  // Teaching order; the reference first. A new variant: one file, one line here.
  static const std::array table{
      detail::cublas_variant(),    detail::copy_variant(),     detail::naive_row_variant(),
      detail::naive_col_variant(), detail::smem_tile_variant(), detail::padded_variant(),
      detail::swizzled_variant(),  detail::tuned_variant(),
  };
  return table;
}

const TransposeVariant& find(std::string_view name) {
  for (const auto& v : variants())
    if (v.info.name == name) return v;
  throw UsageError(fmt::format("unknown transpose variant '{}' (see 'smemlab list')", name));
}

template <class T>
void run(const TransposeVariant& variant, const Args<T>& args, const LaunchContext& ctx) {
  validate(args);
  launch_of<T>(variant)(args, ctx);
}

template void run<float>(const TransposeVariant&, const Args<float>&, const LaunchContext&);
template void run<double>(const TransposeVariant&, const Args<double>&, const LaunchContext&);

}  // namespace smemlab::transpose
