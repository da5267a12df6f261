#pragma once
// A progress bar for `bench` on a terminal: one line on stderr, redrawn in place, cleared at the
// end. Piped output gets none (a log of carriage returns helps nobody).
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace smemlab::cli {

// The bar's line for `done` of `total` rows after `elapsed_s` seconds, `what` the step under
// way, fitted to `columns` characters (the caller's terminal width).
[[nodiscard]] std::string progress_line(std::size_t done, std::size_t total, double elapsed_s,
                                        std::string_view what, std::size_t columns);

class ProgressBar {
 public:
  ProgressBar(std::ostream& err, std::size_t total_rows, std::size_t columns);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();  // clears the line

  void update(std::string_view what, bool starts_row);

 private:
  std::ostream& err_;
  std::size_t total_;
  std::size_t columns_;
  std::size_t started_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Whether standard error is a terminal, and its width in columns (80 when unknown).
[[nodiscard]] bool stderr_is_terminal();
[[nodiscard]] std::size_t stderr_columns();

}  // namespace smemlab::cli
