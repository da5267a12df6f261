// The access models behind `smemlab explain`, one per variant that uses shared memory. Each
// lists the shared-memory instructions of the compiled kernel (checked against its SASS:
// docs/results/data/*-sass-summary.txt) with the threads that execute them and how often, so
// that the analyzer's wavefronts, summed, predict what Nsight Compute counts. The cpu test
// ExplainModels.MatchTheMeasuredCounters compares them with the committed ncu tables.
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "smemlab/explain.hpp"

namespace smemlab::explain {
namespace {

using banks::Block;

double ceil_div(double a, double b) { return std::ceil(a / b); }

CountedAccess access(std::string what, std::string op, const std::string& expression, Block block,
                     int width, double per_block) {
  return {std::move(what), std::move(op), {banks::Expression::parse(expression), block, width, false, 0}, per_block};
}

// ---- matmul: C is M x N, K deep ----
struct Dims {
  double m, n, k;
};
Dims dims(const Shape& s) {
  return {static_cast<double>(s.dims[0]), static_cast<double>(s.dims[1]), static_cast<double>(s.dims[2])};
}

void matmul_totals(Model& m, const Dims& d, double words_per_output, const std::string& traffic) {
  const double outputs = d.m * d.n;
  m.flops = 2 * d.m * d.n * d.k;
  m.global_bytes = outputs * words_per_output * 4 + outputs * 4;
  m.traffic = traffic;
}

// Square T x T tiles (02, 03). The compiler reads A's row four k at a time (LDS.128, every lane
// of a half-warp on the same address) unless the tile edge is a run-time value.
Model square_tile(const Shape& s, int t, bool dynamic, bool runtime_edge) {
  const Dims d = dims(s);
  Model m;
  m.block = {t, t, 1};
  m.smem_bytes = 2 * static_cast<std::size_t>(t * t) * 4;
  m.dynamic_smem = dynamic;
  m.blocks = ceil_div(d.m, t) * ceil_div(d.n, t);
  const double steps = ceil_div(d.k, t);
  const std::string ts = std::to_string(t);
  m.accesses.push_back(access("A tile store", "st", "ty*" + ts + "+tx", m.block, 4, steps));
  m.accesses.push_back(access("B tile store", "st", "ty*" + ts + "+tx", m.block, 4, steps));
  if (runtime_edge) {
    m.accesses.push_back(access("A row read, one k at a time (loop not unrolled)", "ld", "ty*" + ts, m.block, 4, steps * t));
  } else {
    m.accesses.push_back(access("A row read, four k at once (LDS.128)", "ld", "ty*" + std::to_string(t / 4), m.block, 16, steps * t / 4));
  }
  m.accesses.push_back(access("B column read", "ld", "tx", m.block, 4, steps * t));
  matmul_totals(m, d, 2 * d.k / t, "2K/" + ts + " words per output from L1/L2 (each tile element serves " + ts + " outputs)");
  return m;
}

// Seed 002's column-first 16 x 16 tile (04), unpadded or padded to 17.
Model column_first_tile(const Shape& s, bool padded) {
  const Dims d = dims(s);
  Model m;
  m.block = {16, 16, 1};
  const int row = padded ? 17 : 16;
  m.smem_bytes = 2 * static_cast<std::size_t>(16 * row) * 4;
  m.blocks = ceil_div(d.m, 16) * ceil_div(d.n, 16);
  const double steps = ceil_div(d.k, 16);
  const std::string rs = std::to_string(row);
  m.accesses.push_back(access("A tile store, column-first", "st", "tx*" + rs + "+ty", m.block, 4, steps));
  m.accesses.push_back(access("B tile store, column-first", "st", "tx*" + rs + "+ty", m.block, 4, steps));
  if (padded) {  // 17-word rows are not 16-byte aligned: scalar reads
    m.accesses.push_back(access("A row read (a_tile[tx][k])", "ld", "tx*17", m.block, 4, steps * 16));
  } else {
    m.accesses.push_back(access("A row read, four k at once (LDS.128)", "ld", "tx*4", m.block, 16, steps * 4));
  }
  m.accesses.push_back(access("B read (b_tile[k][ty])", "ld", "ty", m.block, 4, steps * 16));
  matmul_totals(m, d, 2 * d.k / 16, "2K/16 words per output, in 16 rows per warp request (uncoalesced)");
  return m;
}

Model thread_tile_1d(const Shape& s) {
  const Dims d = dims(s);
  Model m;
  m.block = {512, 1, 1};
  m.smem_bytes = 2 * 64 * 8 * 4;
  m.blocks = ceil_div(d.m, 64) * ceil_div(d.n, 64);
  const double steps = ceil_div(d.k, 8);
  m.accesses.push_back(access("A tile store", "st", "tx", m.block, 4, steps));
  m.accesses.push_back(access("B tile store", "st", "tx", m.block, 4, steps));
  m.accesses.push_back(access("A column of 8 rows, 4 k at once (LDS.128, one row per warp)", "ld", "(tx/64)*16", m.block, 16, steps * 16));
  m.accesses.push_back(access("B row read, one per k", "ld", "tx%64", m.block, 4, steps * 8));
  matmul_totals(m, d, d.k / 32, "K/32 words per output (64x64 tile, 8 deep)");
  m.notes = "Nsight Compute counts about 11% more store wavefronts than these conflict-free stores need.";
  return m;
}

// Steps 06-11 share the block shape: 128x128 tiles of C, K-steps of 8, 256 threads with 8x8
// outputs each. What differs is the shared memory and the accesses, each counted per K-step.
struct Tile128 {
  Model m;
  double steps;  // K-steps per block
};

Tile128 tile_128(const Shape& s, std::size_t smem_bytes, bool dynamic) {
  const Dims d = dims(s);
  Model m;
  m.block = {256, 1, 1};
  m.smem_bytes = smem_bytes;
  m.dynamic_smem = dynamic;
  m.blocks = ceil_div(d.m, 128) * ceil_div(d.n, 128);
  matmul_totals(m, d, d.k / 64, "K/64 words per output (128x128 tile, 8 deep)");
  return {std::move(m), ceil_div(d.k, 8)};
}

// 06: each thread stores 4 words of each tile per step; the compiler reads A's rows 4 k at a
// time (16 LDS.128 per step: 8 rows x 2) and B's 8 columns as 2 LDS.128 per k.
Model thread_tile_2d(const Shape& s) {
  auto [m, steps] = tile_128(s, 2 * 128 * 8 * 4, false);
  m.accesses.push_back(access("A tile store", "st", "tx", m.block, 4, steps * 4));
  m.accesses.push_back(access("B tile store", "st", "tx", m.block, 4, steps * 4));
  m.accesses.push_back(access("A row read, 4 k at once (LDS.128; 2 thread rows a warp)", "ld", "(tx/16)*16", m.block, 16, steps * 16));
  m.accesses.push_back(access("B read, 4 columns at once (LDS.128; 16 lanes 32 bytes apart)", "ld", "(tx%16)*2", m.block, 16, steps * 16));
  return m;
}

// 07 and 08: A stored transposed (4 scalar stores of a float4), B stored as float4, both read
// as float4: 2 LDS.128 for A and 2 for B per k.
Model vectorized_tile(const Shape& s, bool conflict_free) {
  const int a_row = conflict_free ? 132 : 128;
  auto [m, steps] = tile_128(s, (8 * static_cast<std::size_t>(a_row) + 8 * 128) * 4, false);
  const std::string ar = std::to_string(a_row);
  m.accesses.push_back(access("A store, transposed (4 scalar stores)", "st", "(tx%2)*4*" + ar + " + tx/2", m.block, 4, steps * 4));
  m.accesses.push_back(access("B store (STS.128)", "st", "tx", m.block, 16, steps));
  if (conflict_free) {
    m.accesses.push_back(access("A fragment read (LDS.128, pieces 64 rows apart)", "ld", "tx/16", m.block, 16, steps * 16));
    m.accesses.push_back(access("B fragment read (LDS.128, 16 lanes contiguous)", "ld", "tx%16", m.block, 16, steps * 16));
  } else {
    m.accesses.push_back(access("A fragment read (LDS.128)", "ld", "(tx/16)*2", m.block, 16, steps * 16));
    m.accesses.push_back(access("B fragment read (LDS.128, 16 lanes 32 bytes apart)", "ld", "(tx%16)*2", m.block, 16, steps * 16));
  }
  return m;
}

// 09-11: 8 warps of 32x64 (4 x 8 lanes, lane rows fastest); tiles written by cp.async (LDGSTS,
// which Nsight Compute does not count as shared stores), read as 2 LDS.128 for A and 2 for B
// per k.
Model warp_tiled(const Shape& s, int stages) {
  auto [m, steps] = tile_128(s, static_cast<std::size_t>(stages) * (8 * 132 + 8 * 128) * 4, true);
  m.accesses.push_back(access("A fragment read (LDS.128; 4 lane rows, each quarter-warp all 4)", "ld", "((tx/32)/2)*8 + tx%4", m.block, 16, steps * 16));
  m.accesses.push_back(access("B fragment read (LDS.128; 2 lane columns a quarter-warp)", "ld", "((tx/32)%2)*16 + (tx%32)/4", m.block, 16, steps * 16));
  m.notes = "Tiles are written by cp.async (LDGSTS): not counted as shared-memory stores.";
  return m;
}

// ---- reduction: n elements of T ----
int elem_bytes(const std::string& dtype) { return dtype == "double" ? 8 : 4; }

void reduction_totals(Model& m, double n, int elem) {
  m.flops = n;
  m.global_bytes = n * elem;
  m.traffic = "every element read once";
}

// Seed 001's tree (04, 05): 128 threads, rounds 64, 32, ..., 1 in which the first `offset`
// threads add s_y[tid + offset] into s_y[tid]; thread 0 then reads the block's sum.
Model seed_tree(double n, int elem, bool dynamic) {
  Model m;
  m.block = {128, 1, 1};
  m.smem_bytes = 128 * static_cast<std::size_t>(elem);
  m.dynamic_smem = dynamic;
  m.blocks = ceil_div(n, 128);
  m.accesses.push_back(access("load into s_y", "st", "tx", m.block, elem, 1));
  for (int offset = 64; offset >= 1; offset /= 2) {
    const Block active{offset, 1, 1};
    m.accesses.push_back(access("round " + std::to_string(offset) + ": read s_y[tid]", "ld", "tx", active, elem, 1));
    m.accesses.push_back(access("round " + std::to_string(offset) + ": read s_y[tid+offset]", "ld", "tx", active, elem, 1));
    m.accesses.push_back(access("round " + std::to_string(offset) + ": write s_y[tid]", "st", "tx", active, elem, 1));
  }
  m.accesses.push_back(access("thread 0 reads the block's sum", "ld", "0", {1, 1, 1}, elem, 1));
  reduction_totals(m, n, elem);
  m.notes = "The host adds the block sums; the first round's warps read s_y[tid] and s_y[tid+64].";
  return m;
}

// The 256-thread trees of the classic steps; `per_block` elements per block, first pass only.
Model classic_tree(double n, int elem, const std::string& kind) {
  Model m;
  m.block = {256, 1, 1};
  m.smem_bytes = 256 * static_cast<std::size_t>(elem);
  const bool two_per_thread = kind == "first_add" || kind == "warp_shuffle";
  m.blocks = ceil_div(n, two_per_thread ? 512 : 256);
  m.accesses.push_back(access("store the loaded value(s)", "st", "tx", m.block, elem, 1));
  for (int s = kind == "sequential" || two_per_thread ? 128 : 1;
       kind == "sequential" || two_per_thread ? s >= (kind == "warp_shuffle" ? 64 : 1) : s < 256;
       s = kind == "sequential" || two_per_thread ? s / 2 : s * 2) {
    const std::string r = "round " + std::to_string(s) + ": ";
    if (kind == "divergent") {
      // threads with tid % 2s == 0; the others in their warp point at the same word (no cost)
      const int groups = 256 / (2 * s);
      const Block warps{s >= 32 ? 32 * groups : 256, 1, 1};
      const std::string e = s >= 32 ? "(tx/32)*" + std::to_string(2 * s) : "tx-tx%" + std::to_string(2 * s);
      m.accesses.push_back(access(r + "read sdata[tid]", "ld", e, warps, elem, 1));
      m.accesses.push_back(access(r + "read sdata[tid+s]", "ld", e, warps, elem, 1));
      m.accesses.push_back(access(r + "write sdata[tid]", "st", e, warps, elem, 1));
    } else if (kind == "strided") {
      const Block active{std::max(1, 128 / s), 1, 1};
      const std::string e = std::to_string(2 * s) + "*tx";
      if (s == 1 && elem == 4) {  // sdata[2t] and sdata[2t+1]: one 8-byte load
        m.accesses.push_back(access(r + "read sdata[2t], sdata[2t+1] (LDS.64)", "ld", "tx", active, 8, 1));
      } else {
        m.accesses.push_back(access(r + "read sdata[2st]", "ld", e, active, elem, 1));
        m.accesses.push_back(access(r + "read sdata[2st+s]", "ld", e, active, elem, 1));
      }
      m.accesses.push_back(access(r + "write sdata[2st]", "st", e, active, elem, 1));
    } else {  // sequential addressing: the first s threads
      const Block active{s, 1, 1};
      m.accesses.push_back(access(r + "read sdata[tid]", "ld", "tx", active, elem, 1));
      m.accesses.push_back(access(r + "read sdata[tid+s]", "ld", "tx", active, elem, 1));
      m.accesses.push_back(access(r + "write sdata[tid]", "st", "tx", active, elem, 1));
    }
  }
  if (kind == "warp_shuffle") {
    m.accesses.push_back(access("last warp reads sdata[tid], sdata[tid+32]", "ld", "tx", {32, 1, 1}, elem, 2));
  } else {
    m.accesses.push_back(access("thread 0 reads the block's sum", "ld", "0", {1, 1, 1}, elem, 1));
  }
  reduction_totals(m, n, elem);
  m.notes = "First pass only: later passes over the block sums are " + std::to_string(two_per_thread ? 512 : 256) +
            " times smaller.";
  return m;
}

// ---- transpose: rows x cols ----
Model tile_transpose(const Shape& s, int elem, const std::string& layout) {
  Model m;
  m.block = {32, 32, 1};
  m.smem_bytes = static_cast<std::size_t>(layout == "padded" ? 32 * 33 : 32 * 32) * elem;
  const double r = static_cast<double>(s.dims[0]);
  const double c = static_cast<double>(s.dims[1]);
  m.blocks = ceil_div(r, 32) * ceil_div(c, 32);
  const std::string store = layout == "padded" ? "ty*33+tx" : layout == "swizzled" ? "ty*32+(tx^ty)" : "ty*32+tx";
  const std::string read = layout == "padded" ? "tx*33+ty" : layout == "swizzled" ? "tx*32+(ty^tx)" : "tx*32+ty";
  m.accesses.push_back(access("tile row store", "st", store, m.block, elem, 1));
  m.accesses.push_back(access("tile column read", "ld", read, m.block, elem, 1));
  m.global_bytes = 2 * r * c * elem;
  m.traffic = "one read and one write per element, coalesced both ways";
  return m;
}

Model tuned_transpose(const Shape& s, int elem) {
  const double r = static_cast<double>(s.dims[0]);
  const double c = static_cast<double>(s.dims[1]);
  const long long per_chunk = 16 / elem;  // elements in a 16-byte chunk
  Model m;
  m.global_bytes = 2 * r * c * elem;
  if (static_cast<long long>(r) % per_chunk == 0 && static_cast<long long>(c) % per_chunk == 0) {
    m.block = {512, 1, 1};
    m.smem_bytes = 64 * 64 * static_cast<std::size_t>(elem);
    m.blocks = ceil_div(r, 64) * ceil_div(c, 64);
    if (elem == 4) {
      m.accesses.push_back(access("16-byte chunk stores, chunk-swizzled", "st",
                                  "(tx/16)*16 + (tx%16 ^ ((tx/16)/4)%16)", m.block, 16, 2));
      m.accesses.push_back(access("4-byte column reads (4 per output chunk)", "ld",
                                  "(4*(8*((tx/32)%2)+tx%8))*64 + 4*(((4*((tx/32)/2)+(tx%32)/8)/4) ^ ((8*((tx/32)%2)+tx%8)%16)) + (4*((tx/32)/2)+(tx%32)/8)%4",
                                  m.block, 4, 8));
    } else {
      m.accesses.push_back(access("16-byte chunk stores, chunk-swizzled", "st",
                                  "(tx/32)*32 + (tx%32 ^ ((tx/32)/2)%32)", m.block, 16, 4));
      m.accesses.push_back(access("8-byte column reads (2 per output chunk)", "ld",
                                  "(2*(8*((tx/32)%4)+tx%8))*64 + 2*(((4*((tx/32)/4)+(tx%32)/8)/2) ^ ((8*((tx/32)%4)+tx%8)%32)) + (4*((tx/32)/4)+(tx%32)/8)%2",
                                  m.block, 8, 8));
    }
    m.traffic = "one read and one write per element, 16 bytes per lane";
    m.notes = "The 16-byte path (row lengths that keep 16-byte alignment, aligned pointers).";
  } else {
    m.block = {32, 8, 1};
    m.smem_bytes = 32 * 32 * static_cast<std::size_t>(elem);
    m.blocks = ceil_div(r, 32) * ceil_div(c, 32);  // tiles; blocks are persistent
    m.accesses.push_back(access("tile row stores, swizzled", "st", "ty*32+(tx^ty)", m.block, elem, 4));
    m.accesses.push_back(access("tile column reads, swizzled", "ld", "tx*32+(ty^tx)", m.block, elem, 4));
    m.traffic = "one read and one write per element";
    m.notes = "Counted per 32x32 tile: persistent blocks walk through the tiles.";
  }
  return m;
}

// The bank microbenchmark: per block, each warp loads element lane * stride 4096 times.
Model bank_access(const Shape& s, int width) {
  Model m;
  m.block = {256, 1, 1};
  const long long stride = s.dims[0];
  m.smem_bytes = static_cast<std::size_t>(32 * stride * width);
  m.dynamic_smem = true;
  m.blocks = 1;
  m.accesses.push_back(access("repeated load of element lane*stride", "ld", "tx%32*" + std::to_string(stride), m.block, width, 4096));
  m.traffic = "none: shared memory only";
  m.notes = "Counted per block; the benchmark runs 4 blocks per SM.";
  return m;
}

}  // namespace

Prediction predict(const Model& m) {
  Prediction p;
  for (const auto& a : m.accesses) {
    const banks::Analysis an = banks::analyze(a.access);
    const auto total = static_cast<long long>(std::llround(static_cast<double>(an.wavefronts()) * a.per_block * m.blocks));
    const auto ideal = static_cast<long long>(std::llround(static_cast<double>(an.ideal()) * a.per_block * m.blocks));
    (a.op == "ld" ? p.ld_wavefronts : p.st_wavefronts) += total;
    (a.op == "ld" ? p.ld_ideal : p.st_ideal) += ideal;
  }
  return p;
}

std::string default_size(std::string_view family) {
  if (family == "matmul") return "2048";
  if (family == "reduction") return "2^24";
  if (family == "transpose") return "8192";
  return "32";
}

std::optional<Model> model(std::string_view family, std::string_view name, const Shape& s) {
  const std::string n(name);
  if (family == "matmul") {
    if (n == "smem_tile16") return square_tile(s, 16, false, false);
    if (n == "smem_tile32") return square_tile(s, 32, false, false);
    if (n == "dyn_tile16_const") return square_tile(s, 16, true, false);
    if (n == "dyn_tile16_runtime") return square_tile(s, 16, true, true);
    if (n == "conflict_tile16") return column_first_tile(s, false);
    if (n == "conflict_tile16_padded") return column_first_tile(s, true);
    if (n == "thread_tile_1d") return thread_tile_1d(s);
    if (n == "thread_tile_2d") return thread_tile_2d(s);
    if (n == "vectorized") return vectorized_tile(s, false);
    if (n == "conflict_free") return vectorized_tile(s, true);
    if (n == "warp_tile") return warp_tiled(s, 1);
    if (n == "pipelined" || n == "rasterized") return warp_tiled(s, 3);
    return std::nullopt;
  }
  if (family == "reduction" || family == "reduction-double") {
    const int elem = family == "reduction" ? 4 : 8;
    const double count = static_cast<double>(s.dims[0]);
    if (n == "shared_static") return seed_tree(count, elem, false);
    if (n == "shared_dynamic") return seed_tree(count, elem, true);
    if (n == "interleaved_divergent") return classic_tree(count, elem, "divergent");
    if (n == "interleaved_strided") return classic_tree(count, elem, "strided");
    if (n == "sequential") return classic_tree(count, elem, "sequential");
    if (n == "first_add_on_load") return classic_tree(count, elem, "first_add");
    if (n == "warp_shuffle") return classic_tree(count, elem, "warp_shuffle");
    return std::nullopt;
  }
  if (family == "banks") {
    if (n == "ideal") return bank_access(Shape{{1}}, 4);
    if (n == "u32") return bank_access(s, 4);
    if (n == "u64") return bank_access(s, 8);
    if (n == "u128") return bank_access(s, 16);
    return std::nullopt;
  }
  if (family == "transpose" || family == "transpose-double") {
    const int elem = family == "transpose" ? 4 : 8;
    if (n == "smem_tile") return tile_transpose(s, elem, "plain");
    if (n == "padded") return tile_transpose(s, elem, "padded");
    if (n == "swizzled") return tile_transpose(s, elem, "swizzled");
    if (n == "tuned") return tuned_transpose(s, elem);
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace smemlab::explain
