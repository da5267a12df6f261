#pragma once
// The benchmark: families of variants, the plan a command line asks for, and its results.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smemlab/device_info.hpp"
#include "smemlab/registry.hpp"
#include "smemlab/shape.hpp"

namespace smemlab {

class L2Flusher;

struct BenchOptions {
  int reps = 21;   // timed runs; the median is reported
  int warmup = 3;  // untimed runs first: module load, clocks, caches of the driver
};

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
};

// One row per (variant, size); field names are the JSON keys.
struct BenchRow {
  std::string family;
  std::string variant;
  std::string dtype;  // element type: float or double
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
  bool verified = false;
  double error = 0.0;      // norm-wise relative error against the reference result
  double max_error = 0.0;  // largest element error, in units of the reference's RMS
  std::string checked_against;  // what the output was compared with
};

struct BenchReport {
  DeviceInfo device;
  BenchOptions options;
  std::vector<BenchRow> rows;
  [[nodiscard]] bool all_verified() const;
};

using ProgressFn = std::function<void(std::string_view message)>;

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

// A row's common fields: identity, time, throughput (work per second: flops or bytes, in G),
// the ratio to the reference (the first row already in `rows`; 1 for the reference itself) and
// the share of `peak` (same unit as the throughput).
[[nodiscard]] BenchRow timed_row(std::string_view family, std::string_view variant, std::string_view dtype,
                                 std::string size, const TimingStats& time, double work,
                                 std::string_view unit, double peak, const std::vector<BenchRow>& rows);

class BenchFamily {
 public:
  virtual ~BenchFamily() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::vector<VariantInfo> variants() const = 0;
  [[nodiscard]] virtual std::vector<std::string> default_sizes() const = 0;
  // Element types the family runs; the first is the default.
  [[nodiscard]] virtual std::vector<std::string_view> dtypes() const { return {"float"}; }
  // Whether a bench run that names no family includes this one (a tuning sweep does not).
  [[nodiscard]] virtual bool in_default_run() const { return true; }
  // Checks a size against the family's form (e.g. N or MxNxK) and puts it in canonical form.
  // Throws UsageError.
  [[nodiscard]] virtual Shape canonical(const Shape& shape) const = 0;
  // Device memory a run at this size allocates, reference included.
  [[nodiscard]] virtual std::size_t device_bytes(const Shape& shape, std::string_view dtype) const = 0;
  // Runs the reference and the named variants at one size and type. The reference row comes
  // first and is always present: every ratio needs it.
  [[nodiscard]] virtual std::vector<BenchRow> run(const Shape& shape, std::string_view dtype,
                                                  std::span<const std::string_view> variants,
                                                  const BenchContext& ctx) const = 0;
};

[[nodiscard]] std::span<const BenchFamily* const> families();
// Throws UsageError for an unknown family.
[[nodiscard]] const BenchFamily& find_family(std::string_view name);

// A validated request: which variants of which families at which sizes.
struct BenchPlan {
  struct Item {
    const BenchFamily* family;
    std::vector<std::string_view> variants;  // non-reference variants, registry order
    std::vector<Shape> sizes;
    std::vector<std::string_view> dtypes;
  };
  std::vector<Item> items;
  BenchOptions options;
};

struct BenchRequest {
  std::vector<std::string> families;  // empty: every family the variants need, or all
  std::vector<std::string> variants;  // "name" or "family/name"; empty: all
  std::vector<std::string> sizes;     // empty: each family's defaults
  std::vector<std::string> dtypes;    // empty: each family's default type
  BenchOptions options;
};

// Pure validation, no device work; throws UsageError naming the bad argument.
[[nodiscard]] BenchPlan plan_bench(const BenchRequest& request);
// Throws UsageError when a size's buffers cannot fit in the device's memory.
void check_fits(const BenchPlan& plan, const DeviceInfo& device);

[[nodiscard]] BenchReport run_bench(const BenchPlan& plan, int device_ordinal,
                                    const ProgressFn& progress);

}  // namespace smemlab
