#include "cli/arguments.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

namespace smemlab::cli {
namespace {

std::vector<CLI::App*> subcommands_of(CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : subcommands_of(app)) names.push_back(sub->get_name());
  return names;
}

// CLI11's names for subcommands and options, "--name" or "-n", as the user types them.
std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent())
    for (const CLI::Option* o : at->get_options())
      for (const auto& name : o->get_lnames()) names.push_back("--" + name);
  return names;
}

// The option `name` ("--size", "-h") of `app` or, as CLI11 falls through to them, of its parents.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  const bool is_long = name.starts_with("--");
  const std::string bare = name.substr(is_long ? 2 : 1);
  for (const CLI::App* at = &app; at != nullptr; at = at->get_parent())
    for (const CLI::Option* o : at->get_options())
      if (is_long ? o->check_lname(bare) : o->check_sname(bare)) return o;
  return nullptr;
}

bool takes_value(const CLI::Option& option) { return option.get_items_expected_max() > 0; }

std::vector<const CLI::Option*> positionals_of(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return o->get_positional(); });
}

// How many single-letter edits (insert, delete, replace, swap two neighbours) turn a into b.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  const std::string guess = closest(word, candidates);
  return guess.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", guess);
}

// "bench" for a subcommand, "smemlab" before one; and the command whose help lists its options.
std::string command_name(const CLI::App& app) {
  return app.get_parent() == nullptr ? "smemlab" : app.get_name();
}
std::string help_command(const CLI::App& app) {
  return app.get_parent() == nullptr ? "smemlab --help" : "smemlab " + app.get_name() + " --help";
}

// The positional values fill the subcommand's positional options not given by name, in order:
// none may be left over, and none that is required may be left out.
void check_positionals(const CLI::App& sub, std::span<const std::string> values,
                       const std::set<const CLI::Option*>& given, const ValueHints& hints) {
  std::vector<const CLI::Option*> slots;
  for (const CLI::Option* o : positionals_of(sub))
    if (!given.contains(o)) slots.push_back(o);
  if (values.size() > slots.size()) {
    std::vector<std::string> takes;
    for (const CLI::Option* o : positionals_of(sub)) takes.push_back("one " + o->get_name(true));
    throw UsageError(
        fmt::format("unexpected argument '{}': {} takes {}", values[slots.size()], sub.get_name(),
                    takes.empty() ? "options only" : fmt::format("{}", fmt::join(takes, ", "))));
  }
  for (std::size_t s = values.size(); s < slots.size(); ++s)
    if (slots[s]->get_required())
      throw UsageError(fmt::format("{} needs {}", sub.get_name(), hints.of(slots[s])));
}

}  // namespace

std::string ValueHints::of(const CLI::Option* option) const {
  if (const auto it = takes_.find(option); it != takes_.end()) return it->second;
  std::string text = option->get_description();
  // "Problem size (...)" reads "--size needs a value: problem size (...)"; "CUDA" stays.
  if (text.size() > 1 && std::islower(static_cast<unsigned char>(text[1])))
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::string closest(std::string_view word, std::span<const std::string> candidates) {
  std::string best;
  std::size_t best_distance = 3;  // two edits at most
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance && 2 * d < word.size()) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

UsageError unknown_subcommand(CLI::App& app, std::string_view word) {
  const std::vector<std::string> names = subcommand_names(app);
  return UsageError(fmt::format("unknown subcommand '{}'{}; the subcommands are {}", word,
                                did_you_mean(word, names), fmt::join(names, ", ")));
}

std::vector<std::string> checked_arguments(CLI::App& app, std::span<const std::string> args,
                                           const ValueHints& hints) {
  CLI::App* sub = nullptr;  // once named
  std::vector<std::string> out;
  std::vector<std::string> values;  // the subcommand's positional values, in order
  std::set<const CLI::Option*> given;
  bool options_ended = false;
  std::string asks;  // --help or --version: answered whatever else the line holds
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const CLI::App& at = sub != nullptr ? *sub : app;
    if (!options_ended && arg == "--") {
      options_ended = true;
      continue;
    }
    if (!options_ended && arg.size() > 1 && arg[0] == '-') {
      const bool is_long = arg.starts_with("--");
      const std::size_t equals = is_long ? arg.find('=') : std::string::npos;
      const std::string name = arg.substr(0, equals);
      const CLI::Option* option = find_option(at, name);
      // A value that starts with '-' (-tx+64) where the subcommand takes one.
      const bool is_value =
          option == nullptr && !is_long && sub != nullptr && !positionals_of(*sub).empty();
      if (option == nullptr && !is_value)
        throw UsageError(fmt::format("unknown option '{}' for {}{}; see '{}'", name,
                                     command_name(at), did_you_mean(name, long_names(at)),
                                     help_command(at)));
      if (option != nullptr) {
        given.insert(option);
        if (option == app.get_help_ptr() || option == app.get_version_ptr() ||
            (sub != nullptr && option == sub->get_help_ptr()))
          asks = name;
        if (!takes_value(*option)) {
          if (equals != std::string::npos)
            throw UsageError(fmt::format("{} takes no value ('{}')", name, arg));
          out.push_back(name);
        } else if (equals != std::string::npos) {
          out.push_back(arg);
        } else if (i + 1 < args.size()) {
          out.push_back(name + "=" + args[++i]);
        } else {
          throw UsageError(fmt::format("{} needs a value: {}", name, hints.of(option)));
        }
        continue;
      }
    }
    if (sub == nullptr) {
      const auto subs = subcommands_of(app);
      const auto named = std::find_if(subs.begin(), subs.end(),
                                      [&](const CLI::App* s) { return s->check_name(arg); });
      if (named == subs.end()) throw unknown_subcommand(app, arg);
      sub = *named;
      out.push_back(arg);
      continue;
    }
    values.push_back(arg);
  }
  if (!asks.empty()) {  // only the question, as the other values run callbacks that may throw
    std::vector<std::string> question;
    if (sub != nullptr) question.push_back(sub->get_name());
    question.push_back(asks);
    return question;
  }
  if (sub == nullptr)
    throw UsageError(fmt::format("a subcommand is needed: {} ('smemlab help' says what each does)",
                                 fmt::join(subcommand_names(app), ", ")));
  check_positionals(*sub, values, given, hints);
  if (!values.empty()) {
    out.emplace_back("--");
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

}  // namespace smemlab::cli
