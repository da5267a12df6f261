// Uses the installed library through its public headers: lists the matmul variants and checks
// the argument validation, which needs no GPU.
#include <smemlab/matmul.hpp>

#include <iostream>
#include <stdexcept>

int main() {
  for (const auto& v : smemlab::matmul::variants()) std::cout << v.info.id() << "\n";
  smemlab::matmul::GemmArgs bad;  // m = n = k = 0
  try {
    smemlab::matmul::validate(bad);
  } catch (const std::invalid_argument&) {
    return smemlab::matmul::variants().empty() ? 1 : 0;
  }
  return 1;
}
