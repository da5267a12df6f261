#pragma once
// `smemlab explain --measure`: the variant's kernel under Nsight Compute, beside the model, and
// the step and the previous step timed on this GPU.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "explain/steps.hpp"
#include "smemlab/access_model.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::explain {

// One launch of the modelled kernel as Nsight Compute counted it. Stores are counted twice:
// from the addresses each instruction's lanes used (Nsight Compute's count per instruction, what
// a model of the addresses predicts), and by the L1's own counter, which also counts the
// wavefronts a store waits while the same banks serve other traffic (global loads through the
// L1, TMA copies into or out of shared memory). Loads are counted both ways as well: the L1's
// count includes ldmatrix, which the count per instruction leaves out, and the waits for wgmma's
// reads of shared memory, which the addresses do not explain.
struct Measurement {
  std::string kernel;  // as ncu names it, without namespaces
  double grid_blocks = 0;
  double ld_wavefronts = 0;     // the L1's count, ldmatrix included
  double addr_ld_wavefronts = 0;  // from the addresses, ldmatrix left out
  double st_wavefronts = 0;     // from the addresses
  double cp_wavefronts = 0;     // the shared-memory writes of cp.async, from the addresses
  double l1_st_wavefronts = 0;  // the L1's count of stores
  // The rest is NaN (stalls empty) when only the wavefronts were measured.
  double ld_conflicts = 0;  // the L1's bank-conflict counts: wavefronts past the fewest the bytes need
  double st_conflicts = 0;
  double dram_bytes = 0;  // read + written
  double achieved_occupancy_pct = 0;
  std::vector<std::pair<std::string, double>> stalls;  // the largest first: cycles per issue
  double atom_wavefronts = 0;  // shared-memory atomics (a cluster's included), from the addresses
};

// Whether this machine can measure: a GPU and ncu on the PATH; otherwise why not.
[[nodiscard]] std::string why_cannot_measure();

// One kernel to measure: `smemlab bench` of the variant at this size and type (one checked and
// one timed run), and the model that names its kernel.
struct MeasureRequest {
  const VariantInfo* variant = nullptr;
  Shape shape;
  DType type = DType::f32;
  AccessModel model;
};

enum class Counters {
  kWavefronts,  // the wavefronts and the grid: one profiling pass and one instrumented pass
  kAll,         // also bank conflicts, DRAM bytes, occupancy and stalls: more passes
};

// A request's launch of the model's kernel with the most shared-memory wavefronts (its first
// launch where the model says so: AccessModel::first_launch), or why there
// is none (its bench process failed, or never launched that kernel).
struct MeasureResult {
  std::optional<Measurement> measurement;
  std::string error;
};

// Every request in one Nsight Compute session, so that the profiler starts once however many
// kernels are measured: one `smemlab bench` process runs the requests of a family, size and type
// whose kernels' names tell their launches apart. Throws std::runtime_error when ncu ran no bench.
[[nodiscard]] std::vector<MeasureResult> measure(std::span<const MeasureRequest> requests, int device,
                                                 Counters counters);

// The steps of that session, apart for the tests.
namespace detail {
// Which requests share a bench process: the indices of each process's requests.
[[nodiscard]] std::vector<std::vector<std::size_t>> group_requests(std::span<const MeasureRequest> requests);
// The shell script Nsight Compute runs: one line a process.
[[nodiscard]] std::string measure_script(std::span<const MeasureRequest> requests,
                                         const std::vector<std::vector<std::size_t>>& processes,
                                         const std::string& smemlab, int device);
// What ncu printed (its CSV, and the script's tags) read back into one result per request.
[[nodiscard]] std::vector<MeasureResult> read_measurements(const std::string& text,
                                                           std::span<const MeasureRequest> requests,
                                                           const std::vector<std::vector<std::size_t>>& processes,
                                                           Counters counters);
}  // namespace detail

// One request with every counter; throws std::runtime_error when it cannot be measured.
[[nodiscard]] Measurement measure(const MeasureRequest& request, int device);

// The variant and the previous step of its family's table timed by the benchmark (outside the
// profiler), with the family's reference: what the step bought on this GPU. None for a variant
// that is no step of a table.
[[nodiscard]] std::optional<StepResults> time_steps(const VariantInfo& variant, const Shape& shape,
                                                    DType type, int device);

// The model's tolerance: the loads, the stores and the modelled cp.async writes within 5% of the
// measurement (cp.async writes are left out by the models that do not count them).
inline constexpr double kWavefrontTolerance = 0.05;
[[nodiscard]] bool within_tolerance(double predicted, double measured);
[[nodiscard]] bool copies_within_tolerance(double predicted, double measured);

}  // namespace smemlab::explain
