#pragma once
// The command line checked before CLI11 reads it, so that every mistake is reported in
// smemlab's words (naming the subcommand or option and what it takes) and the arguments are read
// as getopt reads them: an option that takes a value takes the next argument whatever it looks
// like, `--` ends the options, and an argument that starts with '-' but is no option of the
// subcommand is a value (an expression such as -tx+64).
#include <CLI/CLI.hpp>

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smemlab/error.hpp"

namespace smemlab::cli {

// What each option's value may be ("a positive integer"), for the messages about a value that
// is missing or cannot be read.
class ValueHints {
 public:
  void set(const CLI::Option* option, std::string takes) { takes_[option] = std::move(takes); }
  // The option's hint; without one, its help text.
  [[nodiscard]] std::string of(const CLI::Option* option) const;

 private:
  std::map<const CLI::Option*, std::string> takes_;
};

// Checks `args` (the program's name left out) against the subcommands and options that `app`
// defines, and returns them as CLI11 reads them without guessing: options as --name=value, and
// the subcommand's positional values after a `--`. Throws UsageError for an unknown subcommand
// or option, a missing value, a value given to a flag, an argument too many, or a required
// positional value left out. With --help or --version, the names are still checked, and only
// the subcommand and the question are returned.
[[nodiscard]] std::vector<std::string> checked_arguments(CLI::App& app,
                                                         std::span<const std::string> args,
                                                         const ValueHints& hints);

// The UsageError for a word that names no subcommand of `app`: it lists them, with the closest
// as a suggestion.
[[nodiscard]] UsageError unknown_subcommand(CLI::App& app, std::string_view word);

// The candidate a mistyped `word` most likely meant (at most two letters added, dropped, changed
// or swapped, and fewer than half of its letters); empty when none is that close.
[[nodiscard]] std::string closest(std::string_view word, std::span<const std::string> candidates);

}  // namespace smemlab::cli
