// The matmul family in the benchmark: random inputs, cuBLAS as the reference, every output
// checked (against a double-precision CPU product, or cuBLAS where that would take too long),
// then timed.
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "bench/families.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/device_memory.hpp"
#include "smemlab/error.hpp"
#include "smemlab/matmul.hpp"
#include "smemlab/verify.hpp"

namespace smemlab {
namespace {

// Above this many multiply-adds the CPU computes only kSampledRows rows of the reference
// (2^30 is 1024^3: about a second on a few cores).
constexpr double kFullCpuReferenceLimit = 1U << 30;
constexpr int kSampledRows = 16;

struct Dims {
  int m, n, k;
};

Dims dims_of(const Shape& s) {
  return {static_cast<int>(s.dims[0]), static_cast<int>(s.dims[1]), static_cast<int>(s.dims[2])};
}

std::string size_label(const Dims& d) {
  if (d.m == d.n && d.n == d.k) return std::to_string(d.m);
  return fmt::format("{}x{}x{}", d.m, d.n, d.k);
}

// Rows of C the CPU reference covers: all of them when cheap, else evenly spaced samples that
// include the first and the last row (edge tiles are where indexing goes wrong).
std::vector<int> reference_rows(const Dims& d) {
  std::vector<int> rows;
  const double work = static_cast<double>(d.m) * d.n * d.k;
  const int count = work <= kFullCpuReferenceLimit ? d.m : std::min(d.m, kSampledRows);
  for (int i = 0; i < count; ++i)
    rows.push_back(count == 1 ? 0 : static_cast<int>(static_cast<long long>(i) * (d.m - 1) / (count - 1)));
  return rows;
}

std::vector<float> gather_rows(const std::vector<float>& matrix, int cols,
                               const std::vector<int>& rows) {
  std::vector<float> out;
  out.reserve(rows.size() * static_cast<std::size_t>(cols));
  for (int r : rows) {
    const auto first = matrix.begin() + static_cast<std::ptrdiff_t>(r) * cols;
    out.insert(out.end(), first, first + cols);
  }
  return out;
}

}  // namespace

std::vector<VariantInfo> MatmulFamily::variants() const {
  std::vector<VariantInfo> out;
  for (const auto& v : matmul::variants()) out.push_back(v.info);
  return out;
}

std::vector<std::string> MatmulFamily::default_sizes() const {
  // The seeds' sizes, and the SGEMM targets: squares (4095 and 4097 are multiples of no
  // tile), a tall and a wide product.
  return {"256",  "512",  "1024", "2048",           "4095",
          "4096", "4097", "8192", "8192x1024x4096", "1024x8192x4096"};
}

Shape MatmulFamily::canonical(const Shape& shape) const {
  if (shape.dims.size() == 2)
    throw UsageError(fmt::format("matmul sizes are N or MxNxK, not '{}'", shape.label()));
  Shape out = shape.dims.size() == 1 ? Shape{{shape.dims[0], shape.dims[0], shape.dims[0]}} : shape;
  for (const auto d : out.dims)
    if (d > INT_MAX)
      throw UsageError(fmt::format("matmul size '{}': each dimension must be at most {}",
                                   shape.label(), INT_MAX));
  return out;
}

std::size_t MatmulFamily::device_bytes(const Shape& shape, std::string_view /*dtype*/) const {
  const auto m = static_cast<std::size_t>(shape.dims[0]);
  const auto n = static_cast<std::size_t>(shape.dims[1]);
  const auto k = static_cast<std::size_t>(shape.dims[2]);
  return (m * k + k * n + m * n) * sizeof(float);
}

std::vector<BenchRow> run_gemm_candidates(std::string_view family, const Shape& shape,
                                          std::span<const GemmCandidate> candidates,
                                          const BenchContext& ctx) {
  const Dims d = dims_of(shape);
  const std::string label = size_label(d);
  const auto mk = static_cast<std::size_t>(d.m) * d.k;
  const auto kn = static_cast<std::size_t>(d.k) * d.n;
  const auto mn = static_cast<std::size_t>(d.m) * d.n;
  ctx.progress(fmt::format("{} {}: inputs and reference", family, label));

  DeviceBuffer<float> a(mk);
  DeviceBuffer<float> b(kn);
  DeviceBuffer<float> c(mn);
  fill_uniform(a.data(), mk, 1, -1.0F, 1.0F, ctx.stream);
  fill_uniform(b.data(), kn, 2, -1.0F, 1.0F, ctx.stream);
  std::vector<float> a_host(mk);
  std::vector<float> b_host(kn);
  a.download(a_host, ctx.stream);
  b.download(b_host, ctx.stream);

  // Timed runs use alpha = 1, beta = 0: C is poisoned before each checked run and never read.
  const CublasHandle cublas;
  const LaunchContext launch_ctx{ctx.stream, cublas.get()};
  const matmul::GemmArgs args{d.m, d.n, d.k, 1.0F, a.data(), d.k, b.data(), d.n, 0.0F, c.data(), d.n};

  const std::vector<int> rows = reference_rows(d);
  const bool full_cpu = static_cast<int>(rows.size()) == d.m;
  const std::vector<float> a_rows = full_cpu ? std::vector<float>{} : gather_rows(a_host, d.k, rows);
  std::vector<double> cpu_ref(rows.size() * static_cast<std::size_t>(d.n));
  matmul::reference_gemm(static_cast<int>(rows.size()), d.n, d.k, 1.0, full_cpu ? a_host.data() : a_rows.data(),
                         d.k, b_host.data(), d.n, 0.0, nullptr, d.n, cpu_ref.data(), d.n);
  const double tol = matmul::relative_tolerance(d.k);

  std::vector<float> c_host(mn);
  const auto run_checked = [&](const GemmCandidate::Launch& launch) {
    c.poison(ctx.stream);
    launch(args, launch_ctx);
    SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    c.download(c_host, ctx.stream);
  };
  const auto against_cpu = [&]() {
    if (full_cpu) return compare_matrix<float>(d.m, d.n, c_host.data(), d.n, cpu_ref.data(), d.n);
    const std::vector<float> sampled = gather_rows(c_host, d.n, rows);
    return compare_matrix<float>(rows.size(), d.n, sampled.data(), d.n, cpu_ref.data(), d.n);
  };

  std::vector<BenchRow> out;
  const auto measure = [&](std::string_view name, const GemmCandidate::Launch& launch,
                           const ErrorStats& err, std::string checked_against) {
    ctx.progress(fmt::format("{} {}: timing {}", family, label, name));
    BenchRow row = timed_row(family, name, "float", label,
                             time_launches([&] { launch(args, launch_ctx); }, ctx),
                             2.0 * d.m * d.n * d.k, "GFLOP/s", ctx.device.fp32_peak_gflops, out);
    row.verified = err.within(tol);
    row.error = err.relative;
    row.max_error = err.max_element;
    row.checked_against = std::move(checked_against);
    out.push_back(std::move(row));
  };

  // The reference: checked against the CPU on all rows, or on the sampled rows.
  const matmul::GemmVariant& reference = matmul::find("cublas");
  const GemmCandidate::Launch cublas_launch = [&](const matmul::GemmArgs& g, const LaunchContext& lc) {
    matmul::gemm(reference, g, lc);
  };
  run_checked(cublas_launch);
  measure(reference.info.name, cublas_launch, against_cpu(),
          full_cpu ? "cpu-fp64" : "cpu-fp64-sampled-rows");
  // Every variant is checked on all of C: against the CPU when it has all rows, else against
  // cuBLAS (itself just checked against the CPU's sampled rows).
  const std::vector<double> cublas_c = full_cpu ? std::vector<double>{}
                                                : std::vector<double>(c_host.begin(), c_host.end());
  for (const auto& candidate : candidates) {
    run_checked(candidate.launch);
    const ErrorStats err =
        full_cpu ? against_cpu()
                 : compare_matrix<float>(d.m, d.n, c_host.data(), d.n, cublas_c.data(), d.n);
    measure(candidate.name, candidate.launch, err, full_cpu ? "cpu-fp64" : "cublas");
  }
  return out;
}

std::vector<BenchRow> MatmulFamily::run(const Shape& shape, std::string_view /*dtype: float*/,
                                        std::span<const std::string_view> variant_names,
                                        const BenchContext& ctx) const {
  std::vector<GemmCandidate> candidates;
  for (const auto name : variant_names) {
    const matmul::GemmVariant& v = matmul::find(name);
    candidates.push_back({std::string(name), [&v](const matmul::GemmArgs& g, const LaunchContext& lc) {
                            matmul::gemm(v, g, lc);
                          }});
  }
  return run_gemm_candidates("matmul", shape, candidates, ctx);
}

// The tuning sweep's family: every compiled tile configuration x raster group x split-K
// slices, as the autotuned variant could launch them. Not part of a default run.
namespace {

struct TileCandidate {
  std::string name;
  matmul::TileChoice choice;
};

const std::vector<TileCandidate>& tile_candidates() {
  static const std::vector<TileCandidate> all = [] {
    std::vector<TileCandidate> out;
    for (const auto config : matmul::tile_configs())
      for (const int group : {0, 8})
        for (const int slices : {1, 2, 3, 4, 6, 8})
          out.push_back({fmt::format("{}/g{}/k{}", config, group, slices), {config, group, slices}});
    return out;
  }();
  return all;
}

}  // namespace

std::vector<VariantInfo> MatmulTilesFamily::variants() const {
  std::vector<VariantInfo> out;
  out.push_back(matmul::find("cublas").info);
  out.back().family = "matmul-tiles";
  for (const auto& c : tile_candidates())
    out.push_back({.family = "matmul-tiles",
                   .name = c.name,
                   .description = "a configuration the autotuned variant can choose",
                   .technique = "tile configuration / raster group / split-K slices",
                   .smem = SmemKind::dynamic_alloc});
  return out;
}

std::vector<std::string> MatmulTilesFamily::default_sizes() const {
  // One or more shapes of each class the tuning table distinguishes, from the SGEMM targets.
  return {"1024", "2048", "4095", "4096", "4097", "8192", "8192x1024x4096", "1024x8192x4096"};
}

std::vector<BenchRow> MatmulTilesFamily::run(const Shape& shape, std::string_view /*dtype*/,
                                             std::span<const std::string_view> variant_names,
                                             const BenchContext& ctx) const {
  std::vector<GemmCandidate> candidates;
  for (const auto name : variant_names) {
    const auto& all = tile_candidates();
    const auto it = std::find_if(all.begin(), all.end(),
                                 [&](const TileCandidate& c) { return c.name == name; });
    if (it == all.end()) throw UsageError(fmt::format("unknown tile candidate '{}'", name));
    const matmul::TileChoice choice = it->choice;
    candidates.push_back({it->name, [choice](const matmul::GemmArgs& g, const LaunchContext& lc) {
                            matmul::gemm_tiles(choice, g, lc);
                          }});
  }
  return run_gemm_candidates("matmul-tiles", shape, candidates, ctx);
}

}  // namespace smemlab
