#pragma once
// The registry: every kernel variant smemlab knows, with what it demonstrates. The CLI's
// `list`, the benchmark, the tests and `explain` all iterate it, so a new variant is one
// source file plus one line in its family's table.
#include <string>
#include <string_view>
#include <vector>

namespace smemlab {

enum class SmemKind { none, static_alloc, dynamic_alloc };

[[nodiscard]] std::string_view smem_kind_name(SmemKind kind);

struct VariantInfo {
  std::string_view family;
  std::string_view name;
  std::string_view description;  // one line: what the variant does
  std::string_view technique;    // the idea it demonstrates, and why it should be faster
  SmemKind smem = SmemKind::none;
  bool reference = false;  // the vendor routine the family's variants are measured against

  [[nodiscard]] std::string id() const { return std::string(family) + "/" + std::string(name); }
};

// A variant of one family: its metadata and its family-specific launch function.
template <class Launch>
struct Variant {
  VariantInfo info;
  Launch launch;
};

// Every registered variant of every family, families in registry order.
[[nodiscard]] std::vector<VariantInfo> all_variants();

}  // namespace smemlab
