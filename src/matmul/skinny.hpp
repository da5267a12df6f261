#pragma once
// The skinny step's launch (src/matmul/13_skinny.cu), for the default call and `explain`: C with
// few rows or few columns, the large operand streamed once, K in ranges whose partial sums a
// second launch adds in order.
#include <cstddef>

#include "smemlab/launch.hpp"
#include "smemlab/matmul.hpp"

namespace smemlab::matmul::detail {

struct SkinnyPlan {
  bool few_rows = true;  // m <= n: B is streamed; else A
  bool by_row = false;   // few columns, 3 to 16: a thread a row of C (else lanes along K)
  int width = 1;         // rows (or columns) of C a block holds: 1, 2, 4, 8 or 16
  long long blocks = 0;  // per range of K
  int ranges = 1;        // of K; more than 1: partial sums in the workspace, then a second launch
  int range_k = 0;       // elements of K a range: whole rounds of loads
  int load_rounds = 0;   // rounds of loads a block of a range waits for, one after another
};
// The split for an m x n x k product on a device of `sms` SMs.
[[nodiscard]] SkinnyPlan plan_skinny(int m, int n, int k, int sms);
[[nodiscard]] std::size_t skinny_workspace_bytes(const GemmArgs& g);
void launch_skinny(const GemmArgs& g, const LaunchContext& ctx);
// The default call's model of its time (src/matmul/14_auto.cpp), for operands of elem_bytes
// bytes (4: float, and tensor-matmul's tf32), on a device of `sms` SMs whose DRAM peak is
// dram_bytes_per_ns; and that peak for the current device (the measured device's without one).
[[nodiscard]] double skinny_predicted_ns(int m, int n, int k, int sms, double dram_bytes_per_ns);
[[nodiscard]] double dram_peak_bytes_per_ns();

}  // namespace smemlab::matmul::detail
