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

}  // namespace smemlab
