#pragma once
// The benchmark: families of variants, the plan a command line asks for, and its results.
// A family declares its sizes, types and the work of a run, and prepares its inputs and
// checks; the harness (measure) verifies, times, derives throughput, the share of the peak and
// the copy ceiling, and fills the rows.
#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/device_info.hpp"
#include "smemlab/dtype.hpp"
#include "smemlab/shape.hpp"
#include "smemlab/variant.hpp"

namespace smemlab {

class L2Flusher;

struct BenchOptions {
  int reps = 21;   // timed runs; the median is reported
  int warmup = 3;  // untimed runs first: module load, clocks, caches of the driver
  // The seed of the shapes drawn for --size random:N[:SEED]; empty when none were drawn.
  std::optional<std::uint64_t> random_seed = std::nullopt;
  // The GEMM families' operands stored transposed (--transpose a, b or ab).
  bool transpose_a = false;
  bool transpose_b = false;
};

// A GEMM size's label with its operands' storage: "NT" (B stored transposed), "TN" or "TT"
// after the size where either is transposed, as BLAS names op(A) and op(B).
[[nodiscard]] std::string with_operand_layout(std::string size, const BenchOptions& options);

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  // Device runs: the median time the call took to return on the host (choosing, encoding,
  // enqueuing every launch), which small products wait for too; NaN for host runs.
  double host_ms = std::numeric_limits<double>::quiet_NaN();
};

// One row per (variant, size); field names are the JSON keys.
struct BenchRow {
  std::string family;
  std::string variant;
  std::string dtype;  // element type (dtype_name), or the access width of the bank family
  std::string size;
  TimingStats time;
  double throughput = 0.0;  // in the family's unit (GFLOP/s, GB/s)
  std::string throughput_unit;
  double vs_reference = 0.0;  // reference median / variant median, both from this run
  double pct_of_peak = 0.0;   // throughput over the device's theoretical peak, in percent
  // Memory-bound families: device-to-device cudaMemcpy of the same bytes in this run (bytes read
  // + written per second, the practical ceiling) and the variant's throughput over it. NaN where
  // not measured (reported as null or "-").
  double copy_gbs = std::numeric_limits<double>::quiet_NaN();
  double vs_copy = std::numeric_limits<double>::quiet_NaN();
  // Bank microbenchmarks: the analyzer's wavefronts for one warp's access (NaN elsewhere).
  double predicted_wavefronts = std::numeric_limits<double>::quiet_NaN();
  bool reference = false;  // the row every vs_reference of its family, type and size divides
  bool library = false;    // another library's call, timed for comparison (Candidate::library)
  bool verified = false;
  double error = 0.0;      // norm-wise relative error against the reference result
  double max_error = 0.0;  // largest element error, in units of the reference's RMS
  std::string checked_against;  // what the output was compared with
};

struct BenchReport {
  DeviceInfo device;
  BenchOptions options;
  std::vector<VariantInfo> variants;  // the records of the variants the rows name
  std::vector<BenchRow> rows;
  [[nodiscard]] bool all_verified() const;
};

// What a run is doing now; `starts_row` is true when a row's measurement begins (a progress
// bar counts those), false for preparations such as filling inputs.
using ProgressFn = std::function<void(std::string_view what, bool starts_row)>;

// What a family's run may use: the device, the options, a stream, the shared L2 flush and a
// place to report progress.
struct BenchContext {
  const DeviceInfo& device;
  const BenchOptions& options;
  cudaStream_t stream;
  L2Flusher& flusher;
  const ProgressFn& progress;
};

// Times `launch` (enqueued on ctx.stream) with events: warm-up, then ctx.options.reps runs,
// each after an L2 flush that stays outside the timed region.
[[nodiscard]] TimingStats time_launches(const std::function<void()>& launch,
                                        const BenchContext& ctx);

// Times host code with a steady clock: the median, min and max of `reps` runs, no warm-up.
[[nodiscard]] TimingStats time_host(const std::function<void()>& run, int reps);

// Median, min and max of a set of timings (sorted in place).
[[nodiscard]] TimingStats summarize(std::vector<double>& times_ms);

// How a run's work becomes a throughput: work_per_run / seconds, in `unit`, against `peak`
// (same unit; 0 when unknown).
struct Rate {
  double work_per_run = 0.0;
  std::string_view unit;
  double peak = 0.0;

  // Compute-bound: GFLOP/s against the FP32 peak.
  [[nodiscard]] static Rate flops(double flops, const DeviceInfo& device);
  // Tensor-core products: GFLOP/s against the dense tensor peak for the input type.
  [[nodiscard]] static Rate tensor_flops(double flops, const DeviceInfo& device, DType input);
  // Memory-bound: GB/s of bytes read and written against the DRAM peak.
  [[nodiscard]] static Rate bytes(double bytes, const DeviceInfo& device);
};

// A family's verdict on one output.
struct Check {
  bool verified = false;
  double error = 0.0;
  double max_error = 0.0;
  std::string checked_against;
};

// One variant at one size and type, ready to measure.
struct Candidate {
  std::string name = {};
  std::function<Check()> check = {};  // poisons the output, runs once, compares with the reference
  std::function<void()> launch = {};  // one run: enqueued on the stream, or on the host when on_host
  bool on_host = false;
  // The bank microbenchmark's rows differ per candidate in these.
  std::string dtype_label = {};  // empty: the run's element type
  std::optional<Rate> rate = {};  // empty: the workload's
  double predicted_wavefronts = std::numeric_limits<double>::quiet_NaN();
  // Another library's call timed beside the variants (cuDNN's fused attention): never marked
  // the fastest variant.
  bool library = false;
};

// What one size and type of a family measures.
struct Workload {
  std::string size;  // the size as the rows show it
  Rate rate;
  // Memory-bound families: the ceiling copies copy_bytes from copy_source with cudaMemcpy and
  // counts them read and written; 0 for none.
  const void* copy_source = nullptr;
  std::size_t copy_bytes = 0;
};

// Checks, then times each candidate in order (the reference first: every ratio is to it) and
// fills its row.
[[nodiscard]] std::vector<BenchRow> measure(std::string_view family, DType type, const Workload& work,
                                            std::span<const Candidate> candidates,
                                            const BenchContext& ctx);

// How a family writes its sizes.
enum class SizeForm {
  count,   // N
  matrix,  // N (square) or RxC
  gemm,    // N (cube) or MxNxK
};

class BenchFamily;

struct FamilySpec {
  std::string_view name;
  SizeForm form = SizeForm::count;
  std::int64_t max_dim = INT_MAX;  // the largest accepted dimension
  // A run that names no size: a first look, chosen so that every family's together finish in
  // under a minute on a current data-centre GPU.
  std::vector<std::string> sizes;
  // --full: the whole sweep the results pages are made from.
  std::vector<std::string> full_sizes;
  std::string explain_size;  // the size `explain` uses when none is given
  std::span<const DType> dtypes = kFloatOnly;  // element types it runs; the first is the default
  bool in_default_run = true;  // a bench run that names no family includes it (a sweep does not)
  // The family's variants in teaching order, the reference first.
  std::vector<VariantInfo> (*variants)() = nullptr;
  // Device memory a run at this size allocates, reference and copy ceiling included.
  std::size_t (*device_bytes)(const Shape& shape, DType type) = nullptr;
  // Runs the reference and the named variants at one size and type (through measure). The
  // reference row comes first and is always present.
  std::vector<BenchRow> (*run)(const BenchFamily& family, const Shape& shape, DType type,
                               std::span<const std::string_view> variants, const BenchContext& ctx) = nullptr;
  // How `smemlab list` shows a family of generated names (a sweep): grouped, with a legend of
  // the names' parts, in lines of at most `columns`. Null: one line a variant.
  std::string (*listing)(std::size_t columns) = nullptr;
};

// A family of the benchmark: its spec, and the size checks every family shares.
class BenchFamily {
 public:
  explicit BenchFamily(FamilySpec spec) : spec_(std::move(spec)) {}
  BenchFamily(const BenchFamily&) = delete;
  BenchFamily& operator=(const BenchFamily&) = delete;

  [[nodiscard]] const FamilySpec& spec() const { return spec_; }
  [[nodiscard]] std::string_view name() const { return spec_.name; }
  // Checks a size against the family's form and puts it in canonical form (N becomes NxN or
  // NxNxN). Throws UsageError.
  [[nodiscard]] Shape canonical(const Shape& shape) const;
  [[nodiscard]] std::vector<VariantInfo> variants() const { return spec_.variants(); }
  [[nodiscard]] std::size_t device_bytes(const Shape& shape, DType type) const {
    return spec_.device_bytes(shape, type);
  }
  [[nodiscard]] std::vector<BenchRow> run(const Shape& shape, DType type,
                                          std::span<const std::string_view> variants,
                                          const BenchContext& ctx) const {
    return spec_.run(*this, shape, type, variants, ctx);
  }

 private:
  FamilySpec spec_;
};

// f(T{}) with T the C++ type of `type`: one call for families written as templates.
template <class F>
decltype(auto) with_element_type(DType type, F&& f) {
  if (type == DType::f64) return f(double{});
  return f(float{});
}

// The records of a family's variant table.
template <class Launch>
[[nodiscard]] std::vector<VariantInfo> infos_of(std::span<const Variant<Launch>> table) {
  std::vector<VariantInfo> out;
  for (const auto& v : table) out.push_back(v.info);
  return out;
}

// A validated request: which variants of which families at which sizes.
struct BenchPlan {
  struct Item {
    const BenchFamily* family;
    std::vector<std::string_view> variants;  // non-reference variants, registry order
    std::vector<Shape> sizes;
    std::vector<DType> dtypes;
  };
  std::vector<Item> items;
  BenchOptions options;
};

struct BenchRequest {
  std::vector<std::string> families;  // empty: every family the variants need, or all
  std::vector<std::string> variants;  // "name" or "family/name"; empty: all
  std::vector<std::string> sizes;     // empty: each family's sizes, or full_sizes when full
  bool full = false;
  std::vector<std::string> dtypes;    // empty: each family's default type
  std::string transpose;              // as typed: empty, a, b or ab
  BenchOptions options;
};

// Pure validation, no device work; throws UsageError naming the bad argument. A size
// random:N[:SEED] stands for N GEMM shapes drawn from the seed (a fresh one when not given,
// kept in the plan's options).
[[nodiscard]] BenchPlan plan_bench(const BenchRequest& request);
// `count` GEMM shapes MxNxK, each of m, n and k log-uniform from 1 to 16384 with m n k at most
// 2^37, the same for a seed on every machine.
[[nodiscard]] std::vector<std::string> random_gemm_sizes(int count, std::uint64_t seed);
// Throws UsageError when `need` bytes (for `what`) leave too little of the device's memory for
// the L2 flush, the context and the libraries' workspaces.
void require_device_memory(std::size_t need, const DeviceInfo& device, std::string_view what);
// The same for every size of a plan.
void check_fits(const BenchPlan& plan, const DeviceInfo& device);
// The rows a plan will produce: one per variant, reference included, per size and type.
[[nodiscard]] std::size_t planned_rows(const BenchPlan& plan);

[[nodiscard]] BenchReport run_bench(const BenchPlan& plan, int device_ordinal,
                                    const ProgressFn& progress);

}  // namespace smemlab
