// Registers and shared memory of the library's kernels as compiled: ptxas's reports, kept at
// build time (cmake/keep_ptxas_report.sh) and embedded (cmake/embed_ptxas_reports.cmake).
#include "explain/resources.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

extern const char kKernelResources[];

namespace smemlab::explain {
namespace {

std::string readable(const std::string& mangled) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return comparable_kernel_name(status == 0 ? demangled.get() : mangled);
}

std::vector<CompiledKernel> parse_reports() {
  std::vector<CompiledKernel> kernels;
  const std::regex entry(R"(Compiling entry function '([^']+)' for '(sm_[0-9a-z]+)')");
  const std::regex used(R"(Used ([0-9]+) registers(.*?, ([0-9]+) bytes smem)?)");
  const std::regex frame(R"(([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores)");
  std::istringstream in(kKernelResources);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      kernels.push_back({readable(m[1]), m[2], 0, 0, 0, 0});
    } else if (!kernels.empty() && std::regex_search(line, m, used)) {
      kernels.back().registers = std::stoi(m[1]);
      kernels.back().static_smem = m[3].matched ? std::stoul(m[3]) : 0;
    } else if (!kernels.empty() && std::regex_search(line, m, frame)) {
      kernels.back().stack_bytes = std::stoul(m[1]);
      kernels.back().spill_bytes = std::stoul(m[2]);
    }
  }
  return kernels;
}

}  // namespace

std::string comparable_kernel_name(std::string name) {
  // The anonymous namespace as the C++ demangler, ncu and other tools write it.
  name = std::regex_replace(name, std::regex(R"((\(anonymous namespace\)|<unnamed>|\{anonymous\}|`anonymous namespace')::)"), "");
  name = std::regex_replace(name, std::regex(R"([A-Za-z_][A-Za-z0-9_]*::)"), "");
  // Enum template arguments: the demangler writes (Layout)1, ncu writes 1.
  name = std::regex_replace(name, std::regex(R"(\([A-Za-z_][A-Za-z0-9_]*\)(-?[0-9]))"), "$1");
  name = std::regex_replace(name, std::regex(R"(\btrue\b)"), "1");
  name = std::regex_replace(name, std::regex(R"(\bfalse\b)"), "0");
  name = std::regex_replace(name, std::regex(R"(> >)"), ">>");
  if (name.rfind("void ", 0) == 0) name = name.substr(5);
  return name;
}

const std::vector<CompiledKernel>& compiled_kernels() {
  static const std::vector<CompiledKernel> all = parse_reports();
  return all;
}

std::vector<CompiledKernel> compiled_kernels(std::string_view fragment, std::string_view arch) {
  std::vector<CompiledKernel> out;
  if (fragment.empty()) return out;  // a model that names no kernel matches none
  const std::string wanted = comparable_kernel_name(std::string(fragment));
  for (const auto& k : compiled_kernels())
    if (k.name.rfind(wanted, 0) == 0 && (arch.empty() || k.arch == arch)) out.push_back(k);
  return out;
}

}  // namespace smemlab::explain
