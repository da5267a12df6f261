#pragma once
// `smemlab explain --measure`: the variant's kernel under Nsight Compute, beside the model, and
// the step and the previous step timed on this GPU.
#include <optional>
#include <string>
#include <vector>

#include "explain/steps.hpp"
#include "smemlab/access_model.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::explain {

// One launch of the modelled kernel as Nsight Compute counted it.
struct Measurement {
  std::string kernel;  // as ncu names it, without namespaces
  double grid_blocks = 0;
  double ld_wavefronts = 0;
  double st_wavefronts = 0;
  double cp_wavefronts = 0;  // the shared-memory writes of cp.async
  double ld_conflicts = 0;  // ncu's bank-conflict counts: wavefronts past one per instruction
  double st_conflicts = 0;
  double dram_bytes = 0;    // read + written
  double achieved_occupancy_pct = 0;
  std::vector<std::pair<std::string, double>> stalls;  // the largest first: cycles per issue
};

// Whether this machine can measure: a GPU and ncu on the PATH; otherwise why not.
[[nodiscard]] std::string why_cannot_measure();

// Profiles `smemlab bench` of the variant at this size and type (one checked and one timed run)
// and returns the launch of the model's kernel with the most shared-memory wavefronts.
// Throws std::runtime_error when ncu fails or no launch matches.
[[nodiscard]] Measurement measure(const VariantInfo& variant, const Shape& shape, DType type,
                                  const AccessModel& model, int device);

// The variant and the previous step of its family's table timed by the benchmark (outside the
// profiler), with the family's reference: what the step bought on this GPU. None for a variant
// that is no step of a table.
[[nodiscard]] std::optional<StepResults> time_steps(const VariantInfo& variant, const Shape& shape,
                                                    DType type, int device);

// The model's tolerance: loads within 5%, stores from 1% above to 16% below the measurement
// (the hardware counts store wavefronts the addresses do not explain; tests/cpu/explain_test.cpp).
[[nodiscard]] bool within_tolerance(double predicted_ld, double measured_ld, double predicted_st,
                                    double measured_st);
// cp.async writes within 5%, where the model counts them (some models leave them out).
[[nodiscard]] bool copies_within_tolerance(double predicted, double measured);

}  // namespace smemlab::explain
