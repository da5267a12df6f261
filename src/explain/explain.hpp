#pragma once
// `smemlab explain`: a variant's access model (smemlab/access_model.hpp) at one size and
// type, with what it means for occupancy, its step in the family's table, and, with a
// measurement, Nsight Compute's counters beside the model. `explain` computes an Explanation;
// render_text and render_json only format it.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "explain/steps.hpp"
#include "smemlab/access_model.hpp"
#include "smemlab/dtype.hpp"
#include "smemlab/shape.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::explain {

// What bounds the blocks resident on one SM, by architecture (the CUDA occupancy calculator's
// per-compute-capability limits).
struct ArchLimits {
  int cc_major;
  int cc_minor;
  std::size_t smem_per_sm;              // bytes blocks may use together
  std::size_t smem_reserved_per_block;  // taken by the system from each block's share
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int registers_per_sm;  // allocated per warp in units of 256
};

// The limits of a compute capability; throws UsageError for one the table does not have.
[[nodiscard]] const ArchLimits& arch_limits(int cc_major, int cc_minor);
// "8.0, 8.6, ...": the compute capabilities arch_limits knows.
[[nodiscard]] std::string known_archs();

struct Measurement;  // explain/measure.hpp

// A kernel as compiled (ptxas's report; see explain/resources.hpp).
struct CompiledResources {
  std::string arch;  // "sm_90"
  int registers = 0;
  std::size_t static_smem = 0;
  std::size_t stack_bytes = 0;
  std::size_t spill_bytes = 0;
};

// Blocks of the kernel resident on one SM of `arch`: the smallest of what each resource allows.
struct Occupancy {
  ArchLimits arch;
  int blocks = 0;
  std::optional<int> by_registers;  // none: the kernel's registers are not known
  int by_smem = 0;
  int by_threads = 0;
  int by_blocks = 0;
  std::string bound_by;  // the resources that allow no more than `blocks`
};

// One shared-memory instruction of the model.
struct AccessLine {
  std::string what;         // which array, which phase
  std::string op;           // "ld", "st", "cp" or "atom": how the hardware counts its wavefronts
  std::string instruction;  // as `smemlab banks --instruction` spells it
  std::string expression;
  std::array<int, 3> block{};  // the threads that execute it
  int width = 0;               // bytes a lane
  double per_block = 0;        // times each thread executes it, per block (or tile) ...
  bool per_launch = false;     // ... or in the whole launch
  double wavefronts_per_warp = 0;  // the mean over draws where the addresses depend on the data
  double ideal_per_warp = 0;  // the fewest wavefronts its bytes need
  double total_wavefronts = 0;
};

struct ModelExplanation {
  std::string kernel;  // the instantiation occupancy takes (the most registers), in full
  std::vector<std::string> other_kernels;     // further instantiations the model describes
  std::optional<CompiledResources> compiled;  // of `kernel`
  std::array<int, 3> block{};
  std::size_t smem_bytes = 0;
  bool dynamic_smem = false;
  double blocks = 0;
  bool per_tile = false;
  bool tensor_cores_read_shared = false;  // loads measured from their addresses (AccessModel)
  Occupancy occupancy;
  std::vector<AccessLine> accesses;
  Prediction predicted;
  Prediction predicted_per_launch;  // the part of `predicted` that does not grow with the blocks
  double global_bytes = 0;
  double flops = 0;
  std::string traffic;
  std::string notes;
};

// A predicted count beside Nsight Compute's.
struct Compared {
  double predicted = 0;
  double measured = 0;
};

struct MeasuredExplanation {
  std::string kernel;  // as ncu names it
  double grid_blocks = 0;
  double model_scale = 1;  // a model counted per block, scaled to the measured launch
  Compared ld_wavefronts;  // measured: the L1's count, or the addresses' where wgmma reads shared memory
  double l1_ld_wavefronts = 0;  // the L1's count
  Compared st_wavefronts;  // measured: from the addresses
  Compared cp_wavefronts;
  Compared atom_wavefronts;  // measured: from the addresses
  double l1_st_wavefronts = 0;  // the L1's count: also the waits for other traffic
  Compared bank_conflicts;  // wavefronts past the fewest the bytes need; measured: the L1's count
  Compared bytes;           // predicted: requested from L1/L2; measured: from DRAM
  Compared occupancy_pct;   // predicted: theoretical; measured: achieved
  std::vector<std::pair<std::string, double>> top_stalls;
  bool within_tolerance = false;
};

struct Explanation {
  std::string variant;  // family/name
  std::string description;
  std::string technique;
  std::string shared_memory;  // smem_kind_name
  std::string size;           // canonical
  std::string type;
  std::vector<std::pair<std::string, std::string>> tutorials;  // title, original title
  std::string launches;  // what the variant launches at this size; empty for most
  std::optional<Step> step;
  std::optional<ModelExplanation> model;  // none: why_no_model says why
  std::string why_no_model;
  std::optional<MeasuredExplanation> measured;
};

// The explanation of a variant that runs `type`, at a size in its family's canonical form.
// With a measurement of its kernel, the counters beside the prediction; with `timed` (both
// steps timed on this GPU), what the step bought here, else in the committed runs.
[[nodiscard]] Explanation explain(const VariantInfo& variant, const Shape& shape, DType type,
                                  const ArchLimits& arch, const Measurement* measured = nullptr,
                                  const StepResults* timed = nullptr);

// Text for a terminal: every line within kTextColumns.
inline constexpr std::size_t kTextColumns = 100;
[[nodiscard]] std::string render_text(const Explanation& e);
[[nodiscard]] std::string render_json(const Explanation& e);

}  // namespace smemlab::explain
