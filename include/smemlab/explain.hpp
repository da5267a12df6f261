#pragma once
// `smemlab explain`: what a variant does to shared and global memory, predicted. Each model
// lists the shared-memory instructions its kernel executes (as the compiled code has them:
// where the compiler merges four 4-byte reads into one 16-byte read, so does the model), how
// often, and the analyzer's wavefronts for each; plus the footprint and the global traffic.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smemlab/banks.hpp"
#include "smemlab/shape.hpp"

namespace smemlab::explain {

struct CountedAccess {
  std::string what;      // which array, which phase
  std::string op;        // "ld" or "st"
  banks::Access access;  // the pattern, over the threads that execute the instruction
  double per_block = 0;  // times each of those threads executes it, per block
};

struct Model {
  banks::Block block;           // threads per block
  std::size_t smem_bytes = 0;   // per block
  bool dynamic_smem = false;
  double blocks = 0;            // launched at this size
  std::vector<CountedAccess> accesses;
  double global_bytes = 0;      // bytes the kernel's loads and stores request from L1/L2 (not DRAM)
  double flops = 0;
  std::string traffic;          // global traffic per output, in words
  std::string notes;            // what the model leaves out
};

struct Prediction {
  long long ld_wavefronts = 0;
  long long st_wavefronts = 0;
  long long ld_ideal = 0;
  long long st_ideal = 0;
};

// The model of a registered variant at a size (in the family's canonical form); nullopt for
// variants without one (vendor libraries, CPU loops), which explain says in words.
[[nodiscard]] std::optional<Model> model(std::string_view family, std::string_view name, const Shape& shape);
[[nodiscard]] Prediction predict(const Model& m);
// The size explain uses when none is given.
[[nodiscard]] std::string default_size(std::string_view family);

}  // namespace smemlab::explain
