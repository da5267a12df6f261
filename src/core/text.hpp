#pragma once
// Text for a terminal: counted nouns, and paragraphs wrapped to a width with a hanging indent.
#include <cstddef>
#include <string>
#include <string_view>

namespace smemlab {

// "1 row", "2 rows": the count and the noun, plural unless the count is 1. `plural` is for nouns
// that do not take an "s".
[[nodiscard]] inline std::string count_of(long long n, std::string_view noun,
                                          std::string_view plural = {}) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(noun);
  return plural.empty() ? out.append(noun).append("s") : out.append(plural);
}

// Columns that UTF-8 text takes on a terminal: one a code point (smemlab prints no wide
// characters), so that quotes such as “ ” count as one.
[[nodiscard]] inline std::size_t columns(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// `text` broken at spaces into lines of at most `width` columns, for a caller that has printed
// `indent` columns of the first line already: the lines after the first start with `indent`
// spaces (a hanging indent). A word longer than a line gets a line of its own. No final newline.
[[nodiscard]] inline std::string wrap(std::string_view text, std::size_t indent,
                                      std::size_t width) {
  const std::size_t room = width > indent ? width - indent : 1;
  std::string out;
  std::size_t used = 0;  // columns on the current line, after the indent
  while (!text.empty()) {
    const std::size_t start = text.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    text.remove_prefix(start);
    const std::string_view word = text.substr(0, text.find(' '));
    text.remove_prefix(word.size());
    const std::size_t w = columns(word);
    if (used > 0 && used + 1 + w > room) {
      out.append("\n").append(indent, ' ');
      used = 0;
    }
    if (used > 0) {
      out += ' ';
      ++used;
    }
    out.append(word);
    used += w;
  }
  return out;
}

}  // namespace smemlab
