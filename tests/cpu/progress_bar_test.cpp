#include <gtest/gtest.h>

#include <sstream>

#include "cli/progress_bar.hpp"

using namespace smemlab::cli;

TEST(ProgressBar, LineShowsTheShareDoneTheTimeAndTheStep) {
  const std::string line = progress_line(27, 108, 75.4, "matmul float 4096: autotuned", 120);
  EXPECT_EQ(line, "[######..................]  25% 27/108 1:15  matmul float 4096: autotuned");
  EXPECT_EQ(progress_line(0, 0, 0.0, "", 120).substr(0, 31), "[########################] 100%");
}

TEST(ProgressBar, LineFitsTheTerminalAndNeverRunsPastTheEnd) {
  EXPECT_EQ(progress_line(5, 10, 1.0, std::string(200, 'x'), 60).size(), 59U);
  EXPECT_NE(progress_line(12, 10, 1.0, "", 80).find("100% 10/10"), std::string::npos);
}

TEST(ProgressBar, RedrawsInPlaceAndClearsItsLineAtTheEnd) {
  std::ostringstream err;
  {
    ProgressBar bar(err, 2, 80);
    bar.update("inputs", false);
    bar.update("first row", true);
    bar.update("second row", true);
  }
  const std::string text = err.str();
  EXPECT_EQ(text.find('\n'), std::string::npos);  // one line, redrawn with carriage returns
  EXPECT_NE(text.find("0/2 0:00  first row"), std::string::npos);
  EXPECT_NE(text.find("1/2 0:00  second row"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "\r\033[K");
}
