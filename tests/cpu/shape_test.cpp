#include <gtest/gtest.h>

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
