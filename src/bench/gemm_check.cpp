#include "bench/gemm_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "smemlab/error.hpp"
#include "smemlab/matmul.hpp"

namespace smemlab {
namespace {

// Above this many multiply-adds the CPU computes only kSampledRows rows of the reference
// (2^30 is 1024^3: about a second on a few cores).
constexpr double kFullCpuReferenceLimit = 1U << 30;
constexpr int kSampledRows = 16;

std::vector<float> gather_rows(const std::vector<float>& matrix, int cols, const std::vector<int>& rows) {
  std::vector<float> out;
  out.reserve(rows.size() * static_cast<std::size_t>(cols));
  for (int r : rows) {
    const auto first = matrix.begin() + static_cast<std::ptrdiff_t>(r) * cols;
    out.insert(out.end(), first, first + cols);
  }
  return out;
}

}  // namespace

std::string gemm_size_label(const GemmShape& d) {
  if (d.m == d.n && d.n == d.k) return std::to_string(d.m);
  return fmt::format("{}x{}x{}", d.m, d.n, d.k);
}

std::vector<float> transposed(const std::vector<float>& m, int rows, int cols) {
  std::vector<float> out(m.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      out[static_cast<std::size_t>(c) * rows + r] = m[static_cast<std::size_t>(r) * cols + c];
  return out;
}

GemmReference::GemmReference(int m, int n, int k, const std::vector<float>& a, const std::vector<float>& b)
    : m_(m), n_(n) {
  const double work = static_cast<double>(m) * n * k;
  const int count = work <= kFullCpuReferenceLimit ? m : std::min(m, kSampledRows);
  for (int i = 0; i < count; ++i)
    rows_.push_back(count == 1 ? 0 : static_cast<int>(static_cast<long long>(i) * (m - 1) / (count - 1)));
  product_.resize(rows_.size() * static_cast<std::size_t>(n));
  const std::vector<float> a_rows = full() ? std::vector<float>{} : gather_rows(a, k, rows_);
  matmul::reference_gemm(static_cast<int>(rows_.size()), n, k, 1.0, full() ? a.data() : a_rows.data(), k, b.data(),
                         n, 0.0, nullptr, n, product_.data(), n);
}

ErrorStats GemmReference::compare(const std::vector<float>& c) const {
  if (full()) return compare_matrix<float>(m_, n_, c.data(), n_, product_.data(), n_);
  const std::vector<float> sampled = gather_rows(c, n_, rows_);
  return compare_matrix<float>(rows_.size(), n_, sampled.data(), n_, product_.data(), n_);
}

std::vector<BenchRow> measure_gemms(std::string_view family, DType type, const Workload& work,
                                    const GemmReference& cpu, double tolerance, DeviceBuffer<float>& c,
                                    std::span<const GemmRun> runs, const BenchContext& ctx) {
  const int m = cpu.rows();
  const int n = cpu.cols();
  std::vector<float> c_host(static_cast<std::size_t>(m) * n);
  std::vector<double> reference_c;
  const auto run_checked = [&](const GemmRun& run) {
    c.poison(ctx.stream);
    run.launch();
    SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
    c.download(c_host, ctx.stream);
  };
  const auto verdict = [&](const ErrorStats& err, std::string against) {
    return Check{err.within(tolerance), err.relative, err.max_element, std::move(against)};
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const GemmRun& run = runs[i];
    const bool is_reference = i == 0;
    candidates.push_back({.name = run.name,
                          .check = [&, is_reference] {
                            run_checked(run);
                            if (is_reference) {
                              if (!cpu.full()) reference_c.assign(c_host.begin(), c_host.end());
                              return verdict(cpu.compare(c_host), cpu.full() ? "cpu-fp64" : "cpu-fp64-sampled-rows");
                            }
                            if (cpu.full()) return verdict(cpu.compare(c_host), "cpu-fp64");
                            return verdict(compare_matrix<float>(m, n, c_host.data(), n, reference_c.data(), n),
                                           runs.front().name);
                          },
                          .launch = run.launch});
  }
  return measure(family, type, work, candidates, ctx);
}

}  // namespace smemlab
