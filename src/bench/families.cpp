#include <fmt/format.h>

#include <array>

#include "bench/families.hpp"
#include "smemlab/error.hpp"

namespace smemlab {

std::span<const BenchFamily* const> families() {
  static const MatmulFamily matmul;
  static const std::array<const BenchFamily*, 1> all{&matmul};
  return all;
}

const BenchFamily& find_family(std::string_view name) {
  for (const BenchFamily* f : families())
    if (f->name() == name) return *f;
  std::string known;
  for (const BenchFamily* f : families()) known += (known.empty() ? "" : ", ") + std::string(f->name());
  throw UsageError(fmt::format("unknown family '{}' (known: {})", name, known));
}

}  // namespace smemlab
