#pragma once
// Element types of the families' inputs and outputs.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace smemlab {

// f32 and f64: IEEE single and double. The tensor-core types: bf16 (bfloat16: float's 8-bit
// exponent, 8-bit significand) and f16 (IEEE half), stored in 2 bytes; tf32 is float data that
// the tensor cores multiply in TensorFloat-32 (float's exponent, an 11-bit significand).
// The integer types of the scan and the histogram: i32 (two's complement, 32 bits) and u8
// (unsigned bytes).
enum class DType { f32, f64, bf16, f16, tf32, i32, u8 };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16,
                                       DType::tf32, DType::i32, DType::u8};

// How the command line and the reports write each type.
[[nodiscard]] constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float";
    case DType::f64: return "double";
    case DType::bf16: return "bf16";
    case DType::f16: return "half";
    case DType::tf32: return "tf32";
    case DType::i32: return "int32";
    case DType::u8: return "uint8";
  }
  return "?";
}
// Bytes of one stored element (tf32 is stored as float).
[[nodiscard]] constexpr std::size_t dtype_bytes(DType t) {
  switch (t) {
    case DType::f64: return 8;
    case DType::bf16:
    case DType::f16: return 2;
    case DType::u8: return 1;
    default: return 4;
  }
}
// The type a name stands for; nullopt for any other name.
[[nodiscard]] constexpr std::optional<DType> parse_dtype(std::string_view name) {
  for (const DType t : kAllDTypes)
    if (name == dtype_name(t)) return t;
  return std::nullopt;
}
// The accepted names, for messages.
inline constexpr std::string_view kDTypeNames = "float, double, bf16, half, tf32, int32, uint8";

// The DType of a C++ element type that host code stores: float, double, std::int32_t or
// std::uint8_t.
template <class T>
inline constexpr DType dtype_of = std::is_same_v<T, double>         ? DType::f64
                                  : std::is_same_v<T, std::int32_t> ? DType::i32
                                  : std::is_same_v<T, std::uint8_t> ? DType::u8
                                                                    : DType::f32;

inline constexpr DType kFloatOnly[] = {DType::f32};
inline constexpr DType kDoubleOnly[] = {DType::f64};
inline constexpr DType kFloatAndDouble[] = {DType::f32, DType::f64};
// The tensor-core family's input types; C is float for all three.
inline constexpr DType kTensorInputs[] = {DType::bf16, DType::f16, DType::tf32};
// The scan's element types: integers that wrap modulo 2^32, and float.
inline constexpr DType kScanTypes[] = {DType::i32, DType::f32};
// The histogram's sample types: bytes (one bin per value) and float (bins over a range).
inline constexpr DType kHistogramTypes[] = {DType::u8, DType::f32};

// The list for a variant with entry points for float, double or both.
[[nodiscard]] constexpr std::span<const DType> dtypes_for(bool f32, bool f64) {
  if (f32 && f64) return kFloatAndDouble;
  return f32 ? std::span<const DType>(kFloatOnly) : std::span<const DType>(kDoubleOnly);
}

}  // namespace smemlab
