#pragma once
// `smemlab list`: the registered variants, for a person or for a script.
#include <span>
#include <string>

#include "bench/bench.hpp"

namespace smemlab {

// The width the list fits.
inline constexpr std::size_t kListColumns = 100;

// The variants of `shown` (empty: the families of a default run, and a line naming the others):
// per family in teaching order, each with its step and its description wrapped under itself;
// a sweep grouped, with a legend of its names' parts.
[[nodiscard]] std::string render_list(std::span<const BenchFamily* const> shown);

// The full names (family/variant) of the same variants, one a line.
[[nodiscard]] std::string list_names(std::span<const BenchFamily* const> shown);

}  // namespace smemlab
