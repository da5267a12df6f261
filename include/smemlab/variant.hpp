#pragma once
// The variant record: everything smemlab knows about one kernel variant, written in the
// variant's own file. Each family keeps a table of them in teaching order; the command line,
// the benchmark, the tests and `explain` iterate those tables, so a new variant is one source
// file plus one line in its family's table.
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>

#include "smemlab/dtype.hpp"
#include "smemlab/error.hpp"
#include "smemlab/shape.hpp"
#include "smemlab/tutorials.hpp"

namespace smemlab {

enum class SmemKind { none, static_alloc, dynamic_alloc };

[[nodiscard]] std::string_view smem_kind_name(SmemKind kind);

struct AccessModel;  // smemlab/access_model.hpp
// The variant's shared- and global-memory accesses at a size (in its family's canonical form)
// and element type.
using AccessModelFn = AccessModel (*)(const Shape& shape, DType type);

struct VariantInfo {
  std::string_view family;
  std::string_view name;
  std::string_view description;  // one line: what the variant does
  std::string_view technique;    // the idea it demonstrates, and why it should be faster
  // The tutorials whose kernel it reproduces; empty for the steps past them.
  std::span<const Tutorial* const> tutorials = {};
  SmemKind smem = SmemKind::none;
  bool reference = false;  // the vendor routine the family's variants are measured against
  std::span<const DType> dtypes = kFloatOnly;  // element types it runs
  AccessModelFn model = nullptr;  // what `explain` predicts; null when ...
  std::string_view why_no_model = {};  // ... this says why
  // What the variant launches at a size, for variants that choose by size; null for the rest.
  std::string (*launch_plan)(const Shape& shape, DType type) = nullptr;
  // Why the variant cannot run on the current device, empty when it can; null for variants
  // that run wherever their family does.
  std::string (*unavailable)() = nullptr;
  // GEMM families: whether the variant takes A or B stored transposed itself; the others are
  // given row-major copies of such operands, made first.
  bool reads_transposed = false;
  // Where the record is built: a default member initializer reports the place of the
  // aggregate initialization that uses it, the variant's file src/<family>/NN_<technique>.cu.
  std::source_location defined_at = std::source_location::current();

  [[nodiscard]] std::string id() const { return std::string(family) + "/" + std::string(name); }
  [[nodiscard]] bool runs(DType type) const {
    return std::find(dtypes.begin(), dtypes.end(), type) != dtypes.end();
  }
  [[nodiscard]] std::string why_unavailable() const { return unavailable == nullptr ? std::string() : unavailable(); }
  // The variant's step in its family's teaching order: the NN of its file, which descriptions
  // such as "06 with ..." refer to. Empty for a record built elsewhere (a sweep's generated
  // configurations, the bank microbenchmarks).
  [[nodiscard]] std::optional<int> step() const;
};

// The titles of the tutorials a variant reproduces, quoted and joined: “A”, “B”; empty for none.
[[nodiscard]] inline std::string tutorial_titles(const VariantInfo& v) {
  std::string out;
  for (const Tutorial* t : v.tutorials) out += (out.empty() ? "“" : ", “") + std::string(t->title) + "”";
  return out;
}

// A variant of one family: its record and its family-specific launch.
template <class Launch>
struct Variant {
  VariantInfo info;
  Launch launch;
};

// A family's table with each record's element types set from its launch: runs(launch, type)
// says whether the launch has an entry point for that type.
template <class Launch, std::size_t N, class Runs>
[[nodiscard]] std::array<Variant<Launch>, N> with_dtypes(std::array<Variant<Launch>, N> table, Runs runs) {
  for (auto& v : table) v.info.dtypes = dtypes_for(runs(v.launch, DType::f32), runs(v.launch, DType::f64));
  return table;
}

// The variant of a family's table with this name; throws UsageError for an unknown name.
template <class Launch>
[[nodiscard]] const Variant<Launch>& find_variant(std::span<const Variant<Launch>> table,
                                                  std::string_view name) {
  for (const auto& v : table)
    if (v.info.name == name) return v;
  const std::string_view family = table.empty() ? "" : table.front().info.family;
  throw UsageError("unknown " + std::string(family) + " variant '" + std::string(name) +
                   "' (see 'smemlab list')");
}

}  // namespace smemlab
