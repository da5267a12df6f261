#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "bench/families.hpp"
#include "smemlab/error.hpp"

namespace smemlab {

std::span<const BenchFamily* const> families() {
  static const MatmulFamily matmul;
  static const ReductionFamily reduction;
  static const TransposeFamily transpose;
  static const BanksFamily banks;
  static const MatmulTilesFamily matmul_tiles;
  static const std::array<const BenchFamily*, 5> all{&matmul, &reduction, &transpose, &banks,
                                                     &matmul_tiles};
  return all;
}

const BenchFamily& find_family(std::string_view name) {
  for (const BenchFamily* f : families())
    if (f->name() == name) return *f;
  std::vector<std::string_view> known;
  for (const BenchFamily* f : families()) known.push_back(f->name());
  throw UsageError(fmt::format("unknown family '{}' (known: {})", name, fmt::join(known, ", ")));
}

}  // namespace smemlab
