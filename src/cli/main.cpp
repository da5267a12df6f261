#include <iostream>

#include "cli/cli.hpp"
#include "cli/progress_bar.hpp"

int main(int argc, char** argv) {
  return smemlab::cli::run(argc, argv, std::cout, std::cerr, smemlab::cli::stderr_is_terminal());
}
