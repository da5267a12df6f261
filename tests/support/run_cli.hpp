#pragma once
// Runs the smemlab command line in-process and captures what it prints; splits it into lines.
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace smemlab::testing {

struct CliResult {
  int status;
  std::string out;
  std::string err;
};

// The lines of what a command printed, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "smemlab");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  const int status = smemlab::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

}  // namespace smemlab::testing
