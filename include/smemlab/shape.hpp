#pragma once
// Problem sizes as typed on the command line: "N", "RxC" or "MxNxK", positive integers, each
// written in decimal or as a power of two ("2^24").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace smemlab {

struct Shape {
  std::vector<std::int64_t> dims;
  [[nodiscard]] std::string label() const;  // dims joined by 'x'
  bool operator==(const Shape&) const = default;
};

// Throws UsageError for anything but 1 to 3 positive integers joined by 'x'.
[[nodiscard]] Shape parse_shape(std::string_view text);

// A matrix product's size: C is m x n, the sum k deep.
struct GemmShape {
  int m, n, k;
};
// A matrix's size.
struct MatrixShape {
  int rows, cols;
};

// A size as each kind of family reads it; "N" stands for NxNxN and for NxN. Each throws
// UsageError for a size of another form, or a dimension beyond int's range.
[[nodiscard]] GemmShape gemm_shape(const Shape& shape);      // N or MxNxK
[[nodiscard]] MatrixShape matrix_shape(const Shape& shape);  // N or RxC
[[nodiscard]] std::int64_t count(const Shape& shape);        // N: a number of elements

}  // namespace smemlab
