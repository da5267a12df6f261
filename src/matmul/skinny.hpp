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
  int width = 1;         // rows (or columns) of C a block holds: 1, 2, 4, 8 or 16
  long long blocks = 0;  // per range of K
  int ranges = 1;        // of K; more than 1: partial sums in the workspace, then a second launch
  int range_k = 0;       // elements of K a range, a multiple of 128
  int chunk_k = 0;       // elements of K a block takes between two of its barriers
};
// The split for an m x n x k product on a device of `sms` SMs.
[[nodiscard]] SkinnyPlan plan_skinny(int m, int n, int k, int sms);
[[nodiscard]] std::size_t skinny_workspace_bytes(const GemmArgs& g);
void launch_skinny(const GemmArgs& g, const LaunchContext& ctx);

}  // namespace smemlab::matmul::detail
