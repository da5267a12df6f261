// The histogram family in the benchmark: bytes into 256 bins, uniform and all equal (the skew
// that makes atomics wait), and floats uniform in [0, 1) into 1,024, 16,384 and 65,536 bins;
// cub::DeviceHistogram::HistogramEven as the reference. Rows are labelled by type and case
// ("uint8 all-equal", "float 16384 bins"). Throughput is bytes read per second against the DRAM
// peak: a histogram reads n and writes a few counts. Every result is checked against the CPU's
// counts before it is timed: exactly, the dropped samples too.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "bench/families.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"
#include "smemlab/histogram.hpp"

namespace smemlab {
namespace {

// Random bytes from a 64-bit mix of the index: the same on every run.
std::vector<std::uint8_t> random_bytes(std::size_t n) {
  std::vector<std::uint8_t> out(n);
  std::uint64_t x = 0x243F6A8885A308D3ULL;
  for (std::size_t i = 0; i < n; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (std::size_t b = 0; b < 8 && i + b < n; ++b) out[i + b] = static_cast<std::uint8_t>(x >> (8 * b));
  }
  return out;
}

std::vector<float> random_unit_floats(std::size_t n) {
  std::vector<float> out(n);
  std::uint64_t x = 0x13198A2E03707344ULL;
  for (auto& f : out) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    f = static_cast<float>(x >> 40) * 0x1.0p-24F;  // [0, 1), 24 random bits
  }
  return out;
}

// One case: samples on the device, the CPU's counts, and every chosen variant measured on them.
template <class T>
std::vector<BenchRow> run_case(const std::vector<T>& host, int bins, const std::string& label,
                               std::span<const histogram::HistogramVariant* const> chosen,
                               const std::string& size, const BenchContext& ctx) {
  const std::size_t n = host.size();
  const histogram::Counts want = histogram::reference_counts<T>(host, bins, 0.0F, 1.0F);
  DeviceBuffer<T> samples(n);
  samples.upload(host, ctx.stream);
  DeviceBuffer<std::uint32_t> counts(static_cast<std::size_t>(bins));
  DeviceBuffer<std::uint32_t> dropped(1);
  std::size_t workspace_bytes = 0;
  for (const auto* v : chosen)
    workspace_bytes = std::max(workspace_bytes, histogram::workspace_bytes<T>(*v, n, bins));
  DeviceBuffer<unsigned char> workspace(workspace_bytes);
  const histogram::Args<T> args{.samples = samples.data(),
                                .n = n,
                                .counts = counts.data(),
                                .bins = bins,
                                .lower = 0.0F,
                                .upper = 1.0F,
                                .dropped = std::is_same_v<T, float> ? dropped.data() : nullptr,
                                .workspace = workspace.data()};
  std::vector<Candidate> candidates;
  for (const auto* v : chosen) {
    candidates.push_back({.name = std::string(v->info.name),
                          .check =
                              [&, v] {
                                SMEMLAB_CUDA_CHECK(
                                    cudaMemsetAsync(workspace.data(), 0xFF, workspace.bytes(), ctx.stream));
                                counts.poison(ctx.stream);
                                dropped.poison(ctx.stream);
                                histogram::run<T>(*v, args, {ctx.stream});
                                std::vector<std::uint32_t> got(want.bins.size());
                                counts.download(got, ctx.stream);
                                std::vector<std::uint32_t> got_dropped(1);
                                dropped.download(got_dropped, ctx.stream);
                                std::size_t wrong = 0;
                                for (std::size_t b = 0; b < got.size(); ++b) wrong += got[b] != want.bins[b];
                                if (std::is_same_v<T, float>) wrong += got_dropped[0] != want.dropped;
                                const double error = static_cast<double>(wrong);
                                return Check{wrong == 0, error, error, "cpu-exact-counts"};
                              },
                          .launch = [&, v] { histogram::run<T>(*v, args, {ctx.stream}); },
                          .dtype_label = label});
  }
  const Workload work{.size = size, .rate = Rate::bytes(static_cast<double>(n) * sizeof(T), ctx.device)};
  return measure("histogram", dtype_of<T>, work, candidates, ctx);
}

std::vector<BenchRow> run_histogram(const Shape& shape, DType type, std::span<const std::string_view> names,
                                    const BenchContext& ctx) {
  const auto n = static_cast<std::size_t>(count(shape));
  const std::string size = count_label(count(shape));
  std::vector<const histogram::HistogramVariant*> chosen{&histogram::find("cub")};
  for (const auto name : names) {
    const auto& v = histogram::find(name);
    if (v.info.why_unavailable().empty()) chosen.push_back(&v);
  }
  std::vector<BenchRow> rows;
  const auto append = [&rows](std::vector<BenchRow> more) {
    rows.insert(rows.end(), more.begin(), more.end());
  };
  if (type == DType::u8) {
    ctx.progress(fmt::format("histogram uint8 {}: inputs and counts", size), false);
    append(run_case(random_bytes(n), 256, "uint8", chosen, size, ctx));
    append(run_case(std::vector<std::uint8_t>(n, 0x5A), 256, "uint8 all-equal", chosen, size, ctx));
  } else {
    ctx.progress(fmt::format("histogram float {}: inputs and counts", size), false);
    const std::vector<float> host = random_unit_floats(n);
    for (const int bins : {1024, 16384, 65536})
      append(run_case(host, bins, fmt::format("float {} bins", bins), chosen, size, ctx));
  }
  return rows;
}

}  // namespace

const BenchFamily& histogram_family() {
  static const BenchFamily family(
      {.name = "histogram",
       .form = SizeForm::count,
       .max_dim = (std::int64_t{1} << 32) - 1,
       .sizes = {"2^24"},
       .full_sizes = {"2^20", "2^24", "2^26", "2^28"},
       .explain_size = "2^24",
       .dtypes = kHistogramTypes,
       .variants = [] { return infos_of(histogram::variants()); },
       // The samples and the workspaces: where the bins exceed 256, CUB keeps a histogram a block
       // in global memory, about a thousand blocks x 65,536 bins x 4 bytes.
       .device_bytes =
           [](const Shape& shape, DType type) {
             return static_cast<std::size_t>(count(shape)) * dtype_bytes(type) + (std::size_t{512} << 20);
           },
       .run = [](const BenchFamily& /*self*/, const Shape& shape, DType type,
                 std::span<const std::string_view> names,
                 const BenchContext& ctx) { return run_histogram(shape, type, names, ctx); }});
  return family;
}

}  // namespace smemlab
