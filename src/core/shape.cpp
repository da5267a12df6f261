#include "smemlab/shape.hpp"

#include <fmt/format.h>

#include <charconv>
#include <climits>

#include "smemlab/error.hpp"

namespace smemlab {

std::string Shape::label() const {
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(dims[i]);
  }
  return out;
}

Shape parse_shape(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return UsageError(fmt::format("invalid size '{}': {}", text, why));
  };
  Shape shape;
  std::size_t pos = 0;
  while (true) {
    const std::size_t end = std::min(text.find('x', pos), text.size());
    const std::string_view part = text.substr(pos, end - pos);
    if (part.empty()) throw bad("expected N, RxC or MxNxK with positive integers");
    if (part.front() == '-') throw bad("sizes must be positive");
    const auto number = [&](std::string_view digits) {
      std::int64_t value = 0;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec == std::errc::result_out_of_range) throw bad("number too large");
      if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size())
        throw bad("expected N, RxC or MxNxK with positive integers (N may be written 2^K)");
      return value;
    };
    std::int64_t value = 0;
    if (part.starts_with("2^")) {
      const std::int64_t exponent = number(part.substr(2));
      if (exponent < 0 || exponent > 62) throw bad("2^K takes K from 0 to 62");
      value = std::int64_t{1} << exponent;
    } else {
      value = number(part);
    }
    if (value <= 0) throw bad("sizes must be positive");
    shape.dims.push_back(value);
    if (shape.dims.size() > 3) throw bad("at most three dimensions");
    if (end == text.size()) break;
    pos = end + 1;
  }
  return shape;
}

namespace {

int int_dimension(const Shape& shape, std::size_t i) {
  const std::int64_t d = shape.dims[i];
  if (d > INT_MAX) throw UsageError(fmt::format("size '{}': {} exceeds {}", shape.label(), d, INT_MAX));
  return static_cast<int>(d);
}

}  // namespace

GemmShape gemm_shape(const Shape& shape) {
  const std::size_t rank = shape.dims.size();
  if (rank != 1 && rank != 3) throw UsageError(fmt::format("a matrix product's size is N or MxNxK, not '{}'", shape.label()));
  if (rank == 1) {
    const int n = int_dimension(shape, 0);
    return {n, n, n};
  }
  return {int_dimension(shape, 0), int_dimension(shape, 1), int_dimension(shape, 2)};
}

MatrixShape matrix_shape(const Shape& shape) {
  const std::size_t rank = shape.dims.size();
  if (rank != 1 && rank != 2) throw UsageError(fmt::format("a matrix's size is N or RxC, not '{}'", shape.label()));
  return {int_dimension(shape, 0), int_dimension(shape, rank - 1)};
}

std::int64_t count(const Shape& shape) {
  if (shape.dims.size() != 1) throw UsageError(fmt::format("a count is one number, not '{}'", shape.label()));
  return shape.dims[0];
}

}  // namespace smemlab
