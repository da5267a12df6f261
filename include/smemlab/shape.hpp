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

}  // namespace smemlab
