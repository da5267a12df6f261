#pragma once
// The CPU side of checking a GEMM in the benchmark: an FP64 product of the inputs, on every
// row of C when that is cheap, else on evenly spaced rows that include the first and the last
// (edge tiles are where indexing goes wrong).
#include <cstddef>
#include <string>
#include <vector>

#include <functional>
#include <span>
#include <string_view>

#include "bench/bench.hpp"
#include "bench/verify.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/shape.hpp"

namespace smemlab {

// "N" for a cube, else "MxNxK": how the rows show a GEMM's size.
[[nodiscard]] std::string gemm_size_label(const GemmShape& d);

// The transpose (cols x rows, dense) of a dense row-major rows x cols matrix.
[[nodiscard]] std::vector<float> transposed(const std::vector<float>& m, int rows, int cols);

class GemmReference {
 public:
  // A (m x k) and B (k x n), dense row-major, as the kernels read them (already rounded to
  // their input type); C = A * B.
  GemmReference(int m, int n, int k, const std::vector<float>& a, const std::vector<float>& b);
  // Whether every row was computed (else only samples).
  [[nodiscard]] bool full() const { return static_cast<int>(rows_.size()) == m_; }
  // A computed C (m x n, dense) against the reference rows.
  [[nodiscard]] ErrorStats compare(const std::vector<float>& c) const;
  [[nodiscard]] int rows() const { return m_; }
  [[nodiscard]] int cols() const { return n_; }

 private:
  int m_, n_;
  std::vector<int> rows_;
  std::vector<double> product_;  // rows_.size() x n
};

// A GEMM to check and time: `launch` enqueues one run that writes C.
struct GemmRun {
  std::string name;
  std::function<void()> launch;
};

// Checks, then times each run, the reference first; C (the runs' dense m x n output) is
// poisoned before each checked run. The reference is compared with the CPU product on the
// rows that has; every other run on all of C: with the CPU product when it has every row,
// else with the reference's C (itself just checked on the sampled rows).
[[nodiscard]] std::vector<BenchRow> measure_gemms(std::string_view family, DType type, const Workload& work,
                                                  const GemmReference& cpu, double tolerance, DeviceBuffer<float>& c,
                                                  std::span<const GemmRun> runs, const BenchContext& ctx);

}  // namespace smemlab
