#include "matmul/models.hpp"

#include <cmath>
#include <string>
#include <utility>

namespace smemlab::matmul::models {
namespace {

using banks::Block;

double ceil_div(double a, double b) { return std::ceil(a / b); }

// C is M x N, K deep.
struct Dims {
  double m, n, k;
};
Dims dims(const Shape& s) {
  const GemmShape g = gemm_shape(s);
  return {static_cast<double>(g.m), static_cast<double>(g.n), static_cast<double>(g.k)};
}

void totals(AccessModel& m, const Dims& d, double words_per_output, const std::string& traffic) {
  const double outputs = d.m * d.n;
  m.flops = 2 * d.m * d.n * d.k;
  m.global_bytes = outputs * words_per_output * 4 + outputs * 4;
  m.traffic = traffic;
}

// Steps 06-11 share the block shape: 128x128 tiles of C, K-steps of 8, 256 threads with 8x8
// outputs each. What differs is the shared memory and the accesses, each counted per K-step.
struct Tile128 {
  AccessModel m;
  double steps;  // K-steps per block
};

Tile128 tile_128(const Shape& s, std::string kernel, std::size_t smem_bytes, bool dynamic) {
  const Dims d = dims(s);
  AccessModel m;
  m.kernel = std::move(kernel);
  m.block = {256, 1, 1};
  m.smem_bytes = smem_bytes;
  m.dynamic_smem = dynamic;
  m.blocks = ceil_div(d.m, 128) * ceil_div(d.n, 128);
  totals(m, d, d.k / 64, "K/64 words per output (128x128 tile, 8 deep)");
  return {std::move(m), ceil_div(d.k, 8)};
}

}  // namespace

AccessModel square_tile(const Shape& s, int t, bool dynamic, bool runtime_edge) {
  const Dims d = dims(s);
  AccessModel m;
  m.kernel = !dynamic       ? "tiled_static_kernel<" + std::to_string(t) + ">("
             : runtime_edge ? "tiled_dynamic_kernel<RuntimeTile>("
                            : "tiled_dynamic_kernel<FixedTile<" + std::to_string(t) + ">>(";
  m.block = {t, t, 1};
  m.smem_bytes = 2 * static_cast<std::size_t>(t * t) * 4;
  m.dynamic_smem = dynamic;
  m.blocks = ceil_div(d.m, t) * ceil_div(d.n, t);
  const double steps = ceil_div(d.k, t);
  const std::string ts = std::to_string(t);
  m.accesses.push_back(counted_access("A tile store", "st", "ty*" + ts + "+tx", m.block, 4, steps));
  m.accesses.push_back(counted_access("B tile store", "st", "ty*" + ts + "+tx", m.block, 4, steps));
  if (runtime_edge) {
    m.accesses.push_back(counted_access("A row read, one k at a time (loop not unrolled)", "ld", "ty*" + ts, m.block, 4, steps * t));
  } else {
    m.accesses.push_back(counted_access("A row read, four k at once (LDS.128)", "ld", "ty*" + std::to_string(t / 4), m.block, 16, steps * t / 4));
  }
  m.accesses.push_back(counted_access("B column read", "ld", "tx", m.block, 4, steps * t));
  totals(m, d, 2 * d.k / t, "2K/" + ts + " words per output from L1/L2 (each tile element serves " + ts + " outputs)");
  return m;
}

AccessModel column_first_tile(const Shape& s, bool padded) {
  const Dims d = dims(s);
  AccessModel m;
  m.kernel = padded ? "column_major_tile_kernel<1>(" : "column_major_tile_kernel<0>(";
  m.block = {16, 16, 1};
  const int row = padded ? 17 : 16;
  m.smem_bytes = 2 * static_cast<std::size_t>(16 * row) * 4;
  m.blocks = ceil_div(d.m, 16) * ceil_div(d.n, 16);
  const double steps = ceil_div(d.k, 16);
  const std::string rs = std::to_string(row);
  m.accesses.push_back(counted_access("A tile store, column-first", "st", "tx*" + rs + "+ty", m.block, 4, steps));
  m.accesses.push_back(counted_access("B tile store, column-first", "st", "tx*" + rs + "+ty", m.block, 4, steps));
  if (padded) {  // 17-word rows are not 16-byte aligned: scalar reads
    m.accesses.push_back(counted_access("A row read (a_tile[tx][k])", "ld", "tx*17", m.block, 4, steps * 16));
  } else {
    m.accesses.push_back(counted_access("A row read, four k at once (LDS.128)", "ld", "tx*4", m.block, 16, steps * 4));
  }
  m.accesses.push_back(counted_access("B read (b_tile[k][ty])", "ld", "ty", m.block, 4, steps * 16));
  totals(m, d, 2 * d.k / 16, "2K/16 words per output, in 16 rows per warp request (uncoalesced)");
  return m;
}

AccessModel thread_tile_1d(const Shape& s) {
  const Dims d = dims(s);
  AccessModel m;
  m.kernel = "thread_tile_1d_kernel(";
  m.block = {512, 1, 1};
  m.smem_bytes = 2 * 64 * 8 * 4;
  m.blocks = ceil_div(d.m, 64) * ceil_div(d.n, 64);
  const double steps = ceil_div(d.k, 8);
  m.accesses.push_back(counted_access("A tile store", "st", "tx", m.block, 4, steps));
  m.accesses.push_back(counted_access("B tile store", "st", "tx", m.block, 4, steps));
  m.accesses.push_back(counted_access("A column of 8 rows, 4 k at once (LDS.128, one row per warp)", "ld", "(tx/64)*16", m.block, 16, steps * 16));
  m.accesses.push_back(counted_access("B row read, one per k", "ld", "tx%64", m.block, 4, steps * 8));
  totals(m, d, d.k / 32, "K/32 words per output (64x64 tile, 8 deep)");
  m.notes = "Nsight Compute counts about 11% more store wavefronts than these conflict-free stores need.";
  return m;
}

// Each thread stores 4 words of each tile per step; the compiler reads A's rows 4 k at a time
// (16 LDS.128 per step: 8 rows x 2) and B's 8 columns as 2 LDS.128 per k.
AccessModel thread_tile_2d(const Shape& s) {
  auto [m, steps] = tile_128(s, "thread_tile_2d_kernel(", 2 * 128 * 8 * 4, false);
  m.accesses.push_back(counted_access("A tile store", "st", "tx", m.block, 4, steps * 4));
  m.accesses.push_back(counted_access("B tile store", "st", "tx", m.block, 4, steps * 4));
  m.accesses.push_back(counted_access("A row read, 4 k at once (LDS.128; 2 thread rows a warp)", "ld", "(tx/16)*16", m.block, 16, steps * 16));
  m.accesses.push_back(counted_access("B read, 4 columns at once (LDS.128; 16 lanes 32 bytes apart)", "ld", "(tx%16)*2", m.block, 16, steps * 16));
  return m;
}

// A stored transposed (4 scalar stores of a float4), B stored as float4, both read as float4:
// 2 LDS.128 for A and 2 for B per k.
AccessModel vectorized_tile(const Shape& s, bool conflict_free) {
  const int a_row = conflict_free ? 132 : 128;
  auto [m, steps] = tile_128(s, conflict_free ? "vectorized_tile_kernel<true," : "vectorized_tile_kernel<false,",
                             (8 * static_cast<std::size_t>(a_row) + 8 * 128) * 4, false);
  const std::string ar = std::to_string(a_row);
  m.accesses.push_back(counted_access("A store, transposed (4 scalar stores)", "st", "(tx%2)*4*" + ar + " + tx/2", m.block, 4, steps * 4));
  m.accesses.push_back(counted_access("B store (STS.128)", "st", "tx", m.block, 16, steps));
  if (conflict_free) {
    m.accesses.push_back(counted_access("A fragment read (LDS.128, pieces 64 rows apart)", "ld", "tx/16", m.block, 16, steps * 16));
    m.accesses.push_back(counted_access("B fragment read (LDS.128, 16 lanes contiguous)", "ld", "tx%16", m.block, 16, steps * 16));
  } else {
    m.accesses.push_back(counted_access("A fragment read (LDS.128)", "ld", "(tx/16)*2", m.block, 16, steps * 16));
    m.accesses.push_back(counted_access("B fragment read (LDS.128, 16 lanes 32 bytes apart)", "ld", "(tx%16)*2", m.block, 16, steps * 16));
  }
  return m;
}

// 8 warps of 32x64 (4 x 8 lanes, lane rows fastest); tiles written by cp.async (LDGSTS, which
// Nsight Compute does not count as shared stores), read as 2 LDS.128 for A and 2 for B per k.
AccessModel warp_tiled(const Shape& s, int stages) {
  auto [m, steps] = tile_128(s, "tiled_gemm_kernel<TileConfig<128, 128, 8, 32, 64, 8, 8, " + std::to_string(stages) + ", 2, false>,",
                             static_cast<std::size_t>(stages) * (8 * 132 + 8 * 128) * 4, true);
  m.accesses.push_back(counted_access("A fragment read (LDS.128; 4 lane rows, each quarter-warp all 4)", "ld", "((tx/32)/2)*8 + tx%4", m.block, 16, steps * 16));
  m.accesses.push_back(counted_access("B fragment read (LDS.128; 2 lane columns a quarter-warp)", "ld", "((tx/32)%2)*16 + (tx%32)/4", m.block, 16, steps * 16));
  m.notes = "Tiles are written by cp.async (LDGSTS): not counted as shared-memory stores.";
  return m;
}

}  // namespace smemlab::matmul::models
