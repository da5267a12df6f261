#include "cli/progress_bar.hpp"

#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>

namespace smemlab::cli {

std::string progress_line(std::size_t done, std::size_t total, double elapsed_s, std::string_view what,
                          std::size_t columns) {
  constexpr std::size_t kBarWidth = 24;
  done = std::min(done, total);
  const double fraction = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const auto filled = static_cast<std::size_t>(fraction * kBarWidth);
  const auto seconds = static_cast<long>(elapsed_s);
  std::string line = fmt::format("[{}{}] {:>3.0f}% {}/{} {}:{:02}  ", std::string(filled, '#'),
                                 std::string(kBarWidth - filled, '.'), 100.0 * fraction, done, total,
                                 seconds / 60, seconds % 60);
  line += what;
  // The last column stays free: a terminal that wraps there would scroll on every redraw.
  if (columns > 1 && line.size() > columns - 1) line.resize(columns - 1);
  return line;
}

ProgressBar::ProgressBar(std::ostream& err, std::size_t total_rows, std::size_t columns)
    : err_(err), total_(total_rows), columns_(columns) {}

ProgressBar::~ProgressBar() { err_ << "\r\033[K" << std::flush; }

void ProgressBar::update(std::string_view what, bool starts_row) {
  // The row that starts now is not done yet: the bar counts the ones before it.
  const std::size_t done = started_;
  if (starts_row) ++started_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  err_ << "\r\033[K" << progress_line(done, total_, elapsed, what, columns_) << std::flush;
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

std::size_t stderr_columns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace smemlab::cli
