#pragma once
// The library's kernels as compiled: registers, static shared memory and stack per thread,
// from ptxas's reports at build time, so that `explain` needs no GPU to know them.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace smemlab::explain {

// A kernel name as the demangler or ncu writes it, reduced to what both agree on: no
// namespaces, no return type, bools as 0 and 1, no space between closing brackets.
[[nodiscard]] std::string comparable_kernel_name(std::string name);

struct CompiledKernel {
  std::string name;  // comparable_kernel_name: "tiled_static_kernel<16>(GemmArgs)"
  std::string arch;  // "sm_90"
  int registers;
  std::size_t static_smem;  // bytes of __shared__ arrays; dynamic shared memory comes at launch
  std::size_t stack_bytes;
  std::size_t spill_bytes;  // spill stores
};

// Every compiled kernel, for every architecture built.
[[nodiscard]] const std::vector<CompiledKernel>& compiled_kernels();
// The kernels whose comparable name starts with that of `fragment`, for `arch` ("sm_90"; empty:
// any); none for an empty fragment.
[[nodiscard]] std::vector<CompiledKernel> compiled_kernels(std::string_view fragment, std::string_view arch);

}  // namespace smemlab::explain
