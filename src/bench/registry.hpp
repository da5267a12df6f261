#pragma once
// The registry: every benchmark family, each with its variant table, in order. The command
// line's list, bench and explain, and the tests iterate it.
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bench/bench.hpp"

namespace smemlab {

[[nodiscard]] std::span<const BenchFamily* const> families();
// Throws UsageError for an unknown family.
[[nodiscard]] const BenchFamily& find_family(std::string_view name);
// The variants of the families in a default run, in order.
[[nodiscard]] std::vector<VariantInfo> registered_variants();
// "family/name"; throws UsageError for an unknown family or variant.
[[nodiscard]] VariantInfo find_registered(std::string_view id);

}  // namespace smemlab
