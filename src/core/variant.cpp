#include "smemlab/variant.hpp"

namespace smemlab {

std::string_view smem_kind_name(SmemKind kind) {
  switch (kind) {
    case SmemKind::none: return "none";
    case SmemKind::static_alloc: return "static";
    case SmemKind::dynamic_alloc: return "dynamic";
  }
  return "unknown";
}

std::optional<int> VariantInfo::step() const {
  std::string_view file = defined_at.file_name();
  file.remove_prefix(file.find_last_of('/') + 1);  // npos + 1: no folder, nothing removed
  const auto digit = [&](std::size_t i) { return file[i] >= '0' && file[i] <= '9'; };
  if (file.size() < 3 || !digit(0) || !digit(1) || file[2] != '_') return std::nullopt;
  return (file[0] - '0') * 10 + (file[1] - '0');
}

}  // namespace smemlab
