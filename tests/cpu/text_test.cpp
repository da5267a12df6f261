#include <gtest/gtest.h>

#include "core/text.hpp"

using smemlab::columns;
using smemlab::count_of;
using smemlab::wrap;

TEST(Text, CountsTakeThePluralExceptForOne) {
  EXPECT_EQ(count_of(1, "block"), "1 block");
  EXPECT_EQ(count_of(0, "block"), "0 blocks");
  EXPECT_EQ(count_of(2, "timed run"), "2 timed runs");
  EXPECT_EQ(count_of(3, "more bank", "more banks"), "3 more banks");
  EXPECT_EQ(count_of(1, "more bank", "more banks"), "1 more bank");
}

TEST(Text, ColumnsCountCharactersNotBytes) {
  EXPECT_EQ(columns("abc"), 3U);
  EXPECT_EQ(columns("“Shared Memory”"), 15U);
}

TEST(Text, WrapBreaksAtSpacesWithAHangingIndent) {
  EXPECT_EQ(wrap("one two three", 4, 14), "one two\n    three");
  EXPECT_EQ(wrap("one two three", 0, 100), "one two three");
  EXPECT_EQ(wrap("  spaced   out  ", 0, 100), "spaced out");
  // A word longer than the room gets a line of its own rather than being cut.
  EXPECT_EQ(wrap("a verylongword b", 2, 8), "a\n  verylongword\n  b");
  // The quotes count as one column each: “ab cd” fits 7 columns exactly.
  EXPECT_EQ(wrap("“ab cd”", 0, 7), "“ab cd”");
}
