#pragma once
// A kernel's shared-memory accesses, counted: the model behind `smemlab explain`. Each model
// lists the shared-memory instructions its kernel executes (as the compiled code has them:
// where the compiler merges four 4-byte reads into one 16-byte read, so does the model), how
// often, and the bank analyzer's wavefronts for each; plus the footprint and the global
// traffic. A variant's record names its model (smemlab/variant.hpp).
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "smemlab/banks.hpp"

namespace smemlab {

struct CountedAccess {
  std::string what;      // which array, which phase
  std::string op;        // "ld", "st", "cp" (the shared-memory writes of cp.async), or "atom"
  banks::Access access;  // the pattern, over the threads that execute the instruction; rand()
                         // where the addresses depend on the data (counted as the mean of draws)
  double per_block = 0;  // times each of those threads executes it, per block
  // Counted for the whole launch instead: `per_block` is then how often the threads of
  // access.block execute it in the launch. A grid-stride loop's work is fixed by the input,
  // not by how many blocks share it, which the device decides.
  bool per_launch = false;
};

struct AccessModel {
  // The kernel described, as the start of its demangled name without namespaces
  // ("tiled_static_kernel<16>("); where several instantiations match (edge and interior
  // versions), occupancy takes the one with the most registers.
  std::string kernel;
  banks::Block block;           // threads per block
  std::size_t smem_bytes = 0;   // per block
  bool dynamic_smem = false;
  double blocks = 0;            // launched at this size
  // Persistent kernels: `blocks` counts the tiles that fewer resident blocks walk, and the
  // accesses are per tile; the totals stand as they are beside a measured launch.
  bool per_tile = false;
  // wgmma reads its operands from shared memory beside the kernel's own loads. The L1's count
  // of loads then includes the wavefronts a load waits for that traffic, so the loads are
  // compared with their count from the addresses (which leaves out ldmatrix: such kernels use none).
  bool tensor_cores_read_shared = false;
  // Measured on the kernel's first launch in the benchmark (its first input), where the counts
  // depend on the data and the model states the input; otherwise on the launch with the most
  // wavefronts (the interior instantiation, or the largest pass).
  bool first_launch = false;
  std::vector<CountedAccess> accesses;
  double global_bytes = 0;      // bytes the kernel's loads and stores request from L1/L2 (not DRAM)
  double flops = 0;
  std::string traffic;          // global traffic per output, in words
  std::string notes;            // what the model leaves out
};

struct Prediction {
  long long ld_wavefronts = 0;
  long long st_wavefronts = 0;
  long long cp_wavefronts = 0;  // cp.async writes: the hardware counts them apart from stores
  long long atom_wavefronts = 0;  // atomics: counted apart too
  long long ld_ideal = 0;
  long long st_ideal = 0;
  long long cp_ideal = 0;
  long long atom_ideal = 0;
};

// One access of a model, counted: its pattern's wavefronts and ideal (banks::expected: the mean
// over draws where the expression uses rand()), and how often the pattern runs: per block times
// the model's blocks, or in the whole launch.
struct AccessCount {
  banks::Expected pattern;
  double runs = 0;
};
[[nodiscard]] AccessCount count_access(const CountedAccess& a, double blocks);

// The model's counts over its blocks; with `per_launch_only`, only its accesses counted per
// launch, which stay as they are where a measured launch has more or fewer blocks. `counts`,
// where given, holds count_access of each of m.accesses, so that none is counted twice.
[[nodiscard]] Prediction predict(const AccessModel& m, bool per_launch_only = false);
[[nodiscard]] Prediction predict(const AccessModel& m, std::span<const AccessCount> counts,
                                 bool per_launch_only = false);

// One instruction's pattern: `expression` is an element index of `width`-byte elements; op is
// "ld", "st", "atom" or "atom.cluster" (both counted as "atom").
[[nodiscard]] CountedAccess counted_access(std::string what, const std::string& op,
                                           const std::string& expression, banks::Block block,
                                           int width, double per_block);
// The same for ldmatrix, stmatrix and cp.async: `expression` indexes 16-byte rows or chunks
// (cp.async: `width`-byte pieces); op follows from the instruction.
[[nodiscard]] CountedAccess counted_access(std::string what, const banks::Instruction& instruction,
                                           const std::string& expression, banks::Block block,
                                           double per_block, int width = 16);

}  // namespace smemlab
