#pragma once
// Element types of the families' inputs and outputs.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace smemlab {

enum class DType { f32, f64 };

// "float" or "double": how the command line and the reports write it.
[[nodiscard]] constexpr std::string_view dtype_name(DType t) { return t == DType::f32 ? "float" : "double"; }
[[nodiscard]] constexpr std::size_t dtype_bytes(DType t) { return t == DType::f32 ? 4 : 8; }
// The type a name stands for; nullopt for any other name.
[[nodiscard]] constexpr std::optional<DType> parse_dtype(std::string_view name) {
  if (name == "float") return DType::f32;
  if (name == "double") return DType::f64;
  return std::nullopt;
}

template <class T>
inline constexpr DType dtype_of = sizeof(T) == 4 ? DType::f32 : DType::f64;

inline constexpr DType kFloatOnly[] = {DType::f32};
inline constexpr DType kDoubleOnly[] = {DType::f64};
inline constexpr DType kFloatAndDouble[] = {DType::f32, DType::f64};

// The list for a variant with entry points for float, double or both.
[[nodiscard]] constexpr std::span<const DType> dtypes_for(bool f32, bool f64) {
  if (f32 && f64) return kFloatAndDouble;
  return f32 ? std::span<const DType>(kFloatOnly) : std::span<const DType>(kDoubleOnly);
}

}  // namespace smemlab
