#include "smemlab/registry.hpp"

#include "smemlab/banks.hpp"
#include "smemlab/matmul.hpp"
#include "smemlab/reduce.hpp"
#include "smemlab/transpose.hpp"

namespace smemlab {

std::string_view smem_kind_name(SmemKind kind) {
  switch (kind) {
    case SmemKind::none: return "none";
    case SmemKind::static_alloc: return "static";
    case SmemKind::dynamic_alloc: return "dynamic";
  }
  return "unknown";
}

std::vector<VariantInfo> all_variants() {
  std::vector<VariantInfo> out;
  for (const auto& v : matmul::variants()) out.push_back(v.info);
  for (const auto& v : reduce::variants()) out.push_back(v.info);
  for (const auto& v : transpose::variants()) out.push_back(v.info);
  for (const auto& v : banks::access_variants()) out.push_back(v.info);
  return out;
}

}  // namespace smemlab
