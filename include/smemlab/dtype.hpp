#pragma once
// Element types of the families' inputs and outputs.
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace smemlab {

// f32 and f64: IEEE single and double. The tensor-core types: bf16 (bfloat16: float's 8-bit
// exponent, 8-bit significand) and f16 (IEEE half), stored in 2 bytes; tf32 is float data that
// the tensor cores multiply in TensorFloat-32 (float's exponent, an 11-bit significand).
enum class DType { f32, f64, bf16, f16, tf32 };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16, DType::tf32};

// How the command line and the reports write each type.
[[nodiscard]] constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::bf16: return "bf16";
    case DType::f16: return "half";
    case DType::tf32: return "tf32";
  }
  return "?";
}
// Bytes of one stored element (tf32 is stored as float).
[[nodiscard]] constexpr std::size_t dtype_bytes(DType t) {
  return t == DType::f64 ? 8 : t == DType::bf16 || t == DType::f16 ? 2 : 4;
}
// The type a name stands for; nullopt for any other name.
[[nodiscard]] constexpr std::optional<DType> parse_dtype(std::string_view name) {
  for (const DType t : kAllDTypes)
    if (name == dtype_name(t)) return t;
  return std::nullopt;
}
// "float, double, bf16, half, tf32": the accepted names, for messages.
inline constexpr std::string_view kDTypeNames = "float, double, bf16, half, tf32";

template <class T>
inline constexpr DType dtype_of = sizeof(T) == 4 ? DType::f32 : DType::f64;

inline constexpr DType kFloatOnly[] = {DType::f32};
inline constexpr DType kDoubleOnly[] = {DType::f64};
inline constexpr DType kFloatAndDouble[] = {DType::f32, DType::f64};
// The tensor-core family's input types; C is float for all three.
inline constexpr DType kTensorInputs[] = {DType::bf16, DType::f16, DType::tf32};

// The list for a variant with entry points for float, double or both.
[[nodiscard]] constexpr std::span<const DType> dtypes_for(bool f32, bool f64) {
  if (f32 && f64) return kFloatAndDouble;
  return f32 ? std::span<const DType>(kFloatOnly) : std::span<const DType>(kDoubleOnly);
}

}  // namespace smemlab
