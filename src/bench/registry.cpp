#include "bench/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "bench/families.hpp"
#include "smemlab/error.hpp"

namespace smemlab {

std::span<const BenchFamily* const> families() {
  static const std::array all{
      &matmul_family(),       &tensor_matmul_family(),      &reduction_family(), &scan_family(),
      &histogram_family(),    &transpose_family(),          &attention_family(), &banks_family(),
      &matmul_tiles_family(), &tensor_matmul_tiles_family(), &attention_decode_family()};
  return all;
}

const BenchFamily& find_family(std::string_view name) {
  for (const BenchFamily* f : families())
    if (f->name() == name) return *f;
  std::vector<std::string_view> known;
  for (const BenchFamily* f : families()) known.push_back(f->name());
  throw UsageError(fmt::format("unknown family '{}' (known: {})", name, fmt::join(known, ", ")));
}

std::vector<VariantInfo> registered_variants() {
  std::vector<VariantInfo> out;
  for (const BenchFamily* f : families())
    if (f->spec().in_default_run)
      for (const auto& v : f->variants()) out.push_back(v);
  return out;
}

VariantInfo find_registered(std::string_view id) {
  const auto slash = id.find('/');
  if (slash == std::string_view::npos)
    throw UsageError(fmt::format("a variant is named family/variant, not '{}'", id));
  for (const auto& v : find_family(id.substr(0, slash)).variants())
    if (v.name == id.substr(slash + 1)) return v;
  throw UsageError(fmt::format("unknown variant '{}' (see 'smemlab list')", id));
}

}  // namespace smemlab
