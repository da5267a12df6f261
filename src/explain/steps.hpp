#pragma once
// A variant as a step of its family's table (src/<family>/variants.hpp): what its step file's
// opening comment says it changed and should buy, and what it bought against the previous
// step, from one benchmark run: timed on this GPU, or a committed run in docs/results/data.
#include <optional>
#include <span>
#include <string>

#include "bench/bench.hpp"
#include "smemlab/dtype.hpp"
#include "smemlab/shape.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::explain {

// One variant's time in a run.
struct StepTiming {
  std::string variant;  // family/name
  double median_ms = 0;
  double vs_reference = 0;  // the reference's median time over this one's, same run
  bool verified = false;
};

// What a step bought: its time and the previous step's, from the same run.
struct StepResults {
  bool measured_here = false;  // timed on this GPU just now; otherwise a committed run
  std::string gpu;             // the GPU's name
  std::string file;            // the committed run's file; empty when measured here
  int reps = 0;                // the run's --reps: timed runs behind each GPU median
  std::string size;            // as the run wrote it
  std::string type;
  std::string reference;  // family/name: what vs_reference divides
  std::optional<StepTiming> step;
  std::optional<StepTiming> previous;  // none for the first step, or not in that run
};

struct Step {
  std::string number;      // "05": the step file's number
  std::string file;        // "src/matmul/05_thread_tile_1d.cu"
  std::string summary;     // what the step is: the comment before "Changed from" and "Should buy"
  std::string changed;     // "from 02: ...", from the comment; empty where it does not say
  std::string should_buy;  // from the comment; empty where it does not say
  std::optional<VariantInfo> previous;  // the previous entry of the family's table
  std::string previous_number;          // the previous step's file number
  std::optional<StepResults> results;
  std::string why_no_results;  // when there are none
};

// The step of a variant with a step file, without results; none for the others (the bank
// patterns, the tile configurations of matmul-tiles).
[[nodiscard]] std::optional<Step> describe_step(const VariantInfo& variant);

// What the step and the previous step bought in the rows of one run on `gpu` (rows of other
// variants, sizes and types are passed over); `file` empty for a run timed here.
[[nodiscard]] StepResults results_in_run(std::span<const BenchRow> rows, const VariantInfo& variant,
                                         const Step& step, const Shape& shape, DType type,
                                         const std::string& gpu, const std::string& file, int reps);

// The first committed run (embedded at build time) that timed the variant at this size and
// type; none with the reason in `step.why_no_results` otherwise.
void add_committed_results(Step& step, const VariantInfo& variant, const Shape& shape, DType type);

}  // namespace smemlab::explain
