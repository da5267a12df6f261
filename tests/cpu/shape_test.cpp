#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <utility>

#include "smemlab/error.hpp"
#include "smemlab/shape.hpp"

using smemlab::parse_shape;
using smemlab::Shape;
using smemlab::UsageError;

TEST(Shape, ParsesOneToThreeDimensions) {
  EXPECT_EQ(parse_shape("256"), (Shape{{256}}));
  EXPECT_EQ(parse_shape("4097x1025"), (Shape{{4097, 1025}}));
  EXPECT_EQ(parse_shape("1x64x1"), (Shape{{1, 64, 1}}));
  EXPECT_EQ(parse_shape("8192x1024x4096").label(), "8192x1024x4096");
  EXPECT_EQ(parse_shape("2^24"), (Shape{{16777216}}));
  EXPECT_EQ(parse_shape("2^0x3"), (Shape{{1, 3}}));
}

class BadShape : public testing::TestWithParam<const char*> {};

TEST_P(BadShape, IsAUsageError) { EXPECT_THROW((void)parse_shape(GetParam()), UsageError); }

INSTANTIATE_TEST_SUITE_P(Shape, BadShape,
                         testing::Values("", "0", "-5", "12a", "a12", "1x", "x3", "1xx2", "1x0x3",
                                         "1x2x3x4", "99999999999999999999", "3.5", " 4", "4 ",
                                         "+4", "1X2", "2^", "2^x", "2^63", "2^-1", "3^2"));

TEST(Shape, ReadsAsAGemmAMatrixOrACount) {
  using smemlab::count;
  using smemlab::gemm_shape;
  using smemlab::matrix_shape;
  const smemlab::GemmShape cube = gemm_shape(parse_shape("7"));
  EXPECT_EQ(std::make_tuple(cube.m, cube.n, cube.k), std::make_tuple(7, 7, 7));
  const smemlab::GemmShape product = gemm_shape(parse_shape("8192x1024x4096"));
  EXPECT_EQ(std::make_tuple(product.m, product.n, product.k), std::make_tuple(8192, 1024, 4096));
  const smemlab::MatrixShape square = matrix_shape(parse_shape("5"));
  EXPECT_EQ(std::make_pair(square.rows, square.cols), std::make_pair(5, 5));
  const smemlab::MatrixShape wide = matrix_shape(parse_shape("4097x1025"));
  EXPECT_EQ(std::make_pair(wide.rows, wide.cols), std::make_pair(4097, 1025));
  EXPECT_EQ(count(parse_shape("2^40")), std::int64_t{1} << 40);
  // Another form, or a dimension past int's range, is refused.
  EXPECT_THROW((void)gemm_shape(parse_shape("3x4")), UsageError);
  EXPECT_THROW((void)gemm_shape(parse_shape("2^31")), UsageError);
  EXPECT_THROW((void)matrix_shape(parse_shape("3x4x5")), UsageError);
  EXPECT_THROW((void)matrix_shape(parse_shape("2^31x2")), UsageError);
  EXPECT_THROW((void)count(parse_shape("3x4")), UsageError);
}
