#include "attention/models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

namespace smemlab::attention::models {
namespace {

using banks::Block;

constexpr int kThreads = 128;
constexpr int kHeadDim = 128;
constexpr int kTokens = 16384;        // tokens a batch, as the benchmark runs
constexpr int kKeys = 64;             // keys a K/V tile, in every step modelled here
constexpr int kPitch = kHeadDim + 8;  // elements a padded row of Q, K or V (steps 01 and 02)
constexpr int kScorePitch = 68;       // floats a row of S in step 01

// One of the benchmark's cases of head dim 128 at sequence length n.
struct Case {
  const char* label;
  int batch, q_heads, kv_heads, n;
  bool causal;
};

std::vector<Case> cases_at(const smemlab::Shape& s) {
  const auto n = static_cast<int>(count(s));
  const int batch = std::max(1, kTokens / n);
  return {{"16 heads", batch, 16, 16, n, false},
          {"16 heads, causal", batch, 16, 16, n, true},
          {"32 query heads over 8 kv heads, causal", batch, 32, 8, n, true}};
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// A launch's blocks and the K/V tiles they read in all.
struct Work {
  double blocks = 0;
  double tiles = 0;
};

// One block a head's Q tile of `rows` rows. A step that skips the tiles past the causal diagonal
// (q_len = kv_len: row i sees keys 0 to i) reads up to its last row; the others read every tile.
Work q_tiles(const Case& c, int rows, bool skips_masked) {
  const long long tiles_a_head = ceil_div(c.n, rows);
  double tiles = 0;
  for (long long t = 0; t < tiles_a_head; ++t) {
    const long long end = c.causal && skips_masked ? std::min<long long>(c.n, (t + 1) * rows) : c.n;
    tiles += static_cast<double>(ceil_div(end, kKeys));
  }
  const double heads = static_cast<double>(c.batch) * c.q_heads;
  return {heads * static_cast<double>(tiles_a_head), heads * tiles};
}

std::string element(DType type) { return type == DType::f16 ? "__half" : "__nv_bfloat16"; }

AccessModel launch(std::string kernel, const Case& c, const Work& w, int q_rows, std::size_t smem_bytes) {
  AccessModel m;
  m.kernel = std::move(kernel);
  m.block = {kThreads, 1, 1};
  m.smem_bytes = smem_bytes;
  m.dynamic_smem = true;
  m.blocks = w.blocks;
  m.flops = 4.0 * w.tiles * q_rows * kKeys * kHeadDim;
  // Q once a block, K and V a tile, O once.
  m.global_bytes =
      2.0 * kHeadDim * (w.blocks * q_rows + w.tiles * 2 * kKeys) + 2.0 * kHeadDim * c.batch * c.q_heads * c.n;
  m.traffic = fmt::format("Q once, K and V once a {}-row Q tile, O once", q_rows);
  return m;
}

// The launch among the cases with the most wavefronts: the one Nsight Compute's figure is.
AccessModel largest(const smemlab::Shape& s, auto&& model_of) {
  AccessModel best;
  long long most = -1;
  for (const Case& c : cases_at(s)) {
    AccessModel m = model_of(c);
    const Prediction p = predict(m);
    if (p.ld_wavefronts + p.st_wavefronts > most) {
      most = p.ld_wavefronts + p.st_wavefronts;
      best = std::move(m);
      best.notes =
          fmt::format("The launch counted is the case of head dim 128 with the most wavefronts: {}. {}",
                      c.label, best.notes);
    }
  }
  return best;
}

// 16-byte stores of rows padded by one chunk (17 a row), eight rows a pass of 128 threads.
const char* const kPaddedRows = "(tx/16)*17 + tx%16";
// cp.async of 16-byte chunks into rows of 16 chunks with chunk c of row r at c ^ (r % 8).
const char* const kSwizzledRows = "(tx/16)*16 + ((tx%16) ^ ((tx/16)%8))";
// ldmatrix.x4 in swizzled rows (lane l gives a row of matrix l / 8): K's fragments take
// matrices (keys 0-7 | 8-15) x (dims 0-7 | 8-15), V's transposed (keys 0-7 | 8-15) first.
const char* const kKeyMatrices = "(8*((tx%32)/16) + tx%8)*16 + ((((tx%32)/8)%2) ^ (tx%8))";
const char* const kValueMatrices = "(8*(((tx%32)/8)%2) + tx%8)*16 + (((tx%32)/16) ^ (tx%8))";
const banks::Instruction kCopy{banks::Op::cp_async_cg};
const banks::Instruction kMatrices{banks::Op::ldmatrix, 4};
const banks::Instruction kMatricesTransposed{banks::Op::ldmatrix, 4, true};

// The tensor-core steps' K and V: a tile's copies and its fragments.
void swizzled_tile_accesses(AccessModel& m, double tiles, int key_steps, int value_steps) {
  const Block all{kThreads, 1, 1};
  m.accesses.push_back(
      counted_access("K and V tiles (cp.async, swizzled)", kCopy, kSwizzledRows, all, 16 * tiles));
  m.accesses.push_back(
      counted_access("K fragments (ldmatrix.x4)", kMatrices, kKeyMatrices, all, key_steps * tiles));
  m.accesses.push_back(counted_access("V fragments (ldmatrix.x4.trans)", kMatricesTransposed, kValueMatrices,
                                      all, value_steps * tiles));
}

}  // namespace

AccessModel fused_tile(const smemlab::Shape& s, DType type) {
  return largest(s, [&](const Case& c) {
    const Work w = q_tiles(c, 64, false);
    AccessModel m = launch(fmt::format("fused_tile_kernel<{}, {}>(", element(type), kHeadDim), c, w, 64,
                           3 * 64 * kPitch * 2 + 64 * kScorePitch * 4 + 3 * 64 * 4);
    const double tiles = w.tiles / w.blocks;  // a block's
    const Block all{kThreads, 1, 1};
    const Block rows{64, 1, 1};  // one thread a row
    m.accesses.push_back(counted_access("Q tile (16-byte stores)", "st", kPaddedRows, all, 16, 8));
    m.accesses.push_back(counted_access("row maxima and sums set", "st", "tx", rows, 4, 2));
    m.accesses.push_back(
        counted_access("K and V tiles (16-byte stores)", "st", kPaddedRows, all, 16, 16 * tiles));
    // S: a warp's 16 keys against all 64 rows, two 4-byte words a fragment register.
    m.accesses.push_back(counted_access("K fragments (4-byte reads)", "ld",
                                        "(16*(tx/32) + (tx%32)/4)*68 + tx%4", all, 4, 32 * tiles));
    m.accesses.push_back(
        counted_access("Q fragments (4-byte reads)", "ld", "((tx%32)/4)*68 + tx%4", all, 4, 128 * tiles));
    // The scores, lane (g, t) a pair of keys of rows g and g + 8 of each 16, 8 bytes a store.
    m.accesses.push_back(counted_access("scores (8-byte stores)", "st", "((tx%32)/4)*34 + 8*(tx/32) + tx%4",
                                        all, 8, 16 * tiles));
    // The softmax: two threads a row, 32 scores each, read for the maximum, read again for the
    // exponentials and written back, 16 bytes at a time.
    m.accesses.push_back(
        counted_access("softmax: scores (16-byte reads)", "ld", "(tx/2)*17 + 8*(tx%2)", all, 16, 16 * tiles));
    m.accesses.push_back(counted_access("softmax: probabilities (16-byte stores)", "st",
                                        "(tx/2)*17 + 8*(tx%2)", all, 16, 8 * tiles));
    m.accesses.push_back(
        counted_access("softmax: row maximum and sum read", "ld", "tx/2", all, 4, 2 * tiles));
    m.accesses.push_back(
        counted_access("softmax: rescale, sum and maximum written", "st", "tx/2", all, 4, 3 * tiles));
    m.accesses.push_back(counted_access("rescale factors", "ld", "(tx%32)/4", all, 4, 8 * tiles));
    m.accesses.push_back(
        counted_access("P fragments (8-byte reads of S)", "ld", "((tx%32)/4)*34 + tx%4", all, 8, 64 * tiles));
    m.accesses.push_back(counted_access("V fragments (2-byte reads)", "ld",
                                        "2*(tx%4)*136 + 32*(tx/32) + (tx%32)/4", all, 2, 64 * tiles));
    m.accesses.push_back(counted_access("row sums for O", "ld", "(tx%32)/4", all, 4, 8));
    m.accesses.push_back(counted_access("log-sum-exp: maximum and sum", "ld", "tx", rows, 4, 2));
    m.notes =
        "Rows of 136 elements (272 bytes, 4 banks apart) put the eight rows of a fragment read in "
        "eight bank groups: Q's, K's and V's reads are conflict-free. The scores' rows of 68 floats "
        "do the same for 4-byte reads, but a lane's 8-byte stores and reads of a pair of keys meet "
        "another lane's pair in the same banks, and the softmax's two threads a row read 16 bytes "
        "128 bytes apart: 2-way conflicts.";
    return m;
  });
}

AccessModel split_rows(const smemlab::Shape& s, DType type) {
  return largest(s, [&](const Case& c) {
    const Work w = q_tiles(c, 64, true);
    AccessModel m = launch(fmt::format("split_rows_kernel<{}, {}>(", element(type), kHeadDim), c, w, 64,
                           (64 + 2 * kKeys) * kPitch * 2);
    const double tiles = w.tiles / w.blocks;
    const Block all{kThreads, 1, 1};
    m.accesses.push_back(counted_access("Q tile (16-byte stores)", "st", kPaddedRows, all, 16, 8));
    m.accesses.push_back(
        counted_access("K and V tiles (16-byte stores)", "st", kPaddedRows, all, 16, 16 * tiles));
    m.accesses.push_back(counted_access("Q fragments (4-byte reads)", "ld",
                                        "(16*(tx/32) + (tx%32)/4)*68 + tx%4", all, 4, 32 * tiles));
    m.accesses.push_back(
        counted_access("K fragments (4-byte reads)", "ld", "((tx%32)/4)*68 + tx%4", all, 4, 128 * tiles));
    m.accesses.push_back(
        counted_access("V fragments (2-byte reads)", "ld", "2*(tx%4)*136 + (tx%32)/4", all, 2, 256 * tiles));
    m.notes =
        "Conflict-free: padded rows put a fragment's eight rows in eight bank groups. The cost is "
        "the number of reads: one 4-byte read a fragment register of Q and K, two 2-byte reads of V "
        "(a register's two keys lie in different rows).";
    return m;
  });
}

AccessModel swizzled_pipeline(const smemlab::Shape& s, DType type) {
  return largest(s, [&](const Case& c) {
    const Work w = q_tiles(c, 128, true);
    AccessModel m = launch(fmt::format("swizzled_pipeline_kernel<{}, {}>(", element(type), kHeadDim), c, w,
                           128, 128 * kHeadDim * 2 + 2 * 2 * kKeys * kHeadDim * 2);
    const double tiles = w.tiles / w.blocks;
    const Block all{kThreads, 1, 1};
    m.accesses.push_back(counted_access("Q tile (cp.async, swizzled)", kCopy, kSwizzledRows, all, 16));
    // Each warp's two fragments of 16 rows, 8 steps of 16 dims a tile.
    m.accesses.push_back(counted_access(
        "Q fragments (ldmatrix.x4)", kMatrices,
        "(32*(tx/32) + 8*(((tx%32)/8)%2) + tx%8)*16 + (((tx%32)/16) ^ (tx%8))", all, 16 * tiles));
    swizzled_tile_accesses(m, tiles, 32, 32);
    m.notes =
        "Conflict-free: the eight rows of each ldmatrix phase read chunk c ^ (r % 8), eight different "
        "bank groups, and the copies write whole 128-byte lines. A fragment of K or V read once "
        "serves both of a warp's 16-row fragments.";
    return m;
  });
}

AccessModel split_kv(const smemlab::Shape& s, DType type) {
  return largest(s, [&](const Case& c) {
    // Prefill shapes have more row tiles than the GPU has room for, so the keys are not split:
    // one range, and the warps split the rows (four of 16 rows: a tile of 64 packed rows).
    const int group = c.q_heads / c.kv_heads;
    const long long packed = static_cast<long long>(group) * c.n;
    const long long row_tiles = ceil_div(packed, 64);
    Work w{static_cast<double>(c.batch) * c.kv_heads * static_cast<double>(row_tiles), 0};
    for (long long t = 0; t < row_tiles; ++t) {
      const long long last_position = (std::min(64 * (t + 1), packed) - 1) / group;
      const long long end = c.causal ? std::min<long long>(c.n, last_position + 1) : c.n;
      w.tiles += static_cast<double>(c.batch) * c.kv_heads * static_cast<double>(ceil_div(end, kKeys));
    }
    AccessModel m = launch(fmt::format("split_kv_kernel<{}, {}, 4>(", element(type), kHeadDim), c, w, 64,
                           64 * kHeadDim * 2 + 3 * 2 * kKeys * kHeadDim * 2);
    m.traffic = "Q once, K and V once a tile of 64 rows of a head group, O once";
    const double tiles = w.tiles / w.blocks;
    const Block all{kThreads, 1, 1};
    m.accesses.push_back(counted_access("Q tile (cp.async, swizzled)", kCopy, kSwizzledRows, all, 8));
    m.accesses.push_back(counted_access(
        "Q fragments (ldmatrix.x4)", kMatrices,
        "(16*(tx/32) + 8*(((tx%32)/8)%2) + tx%8)*16 + (((tx%32)/16) ^ (tx%8))", all, 8 * tiles));
    swizzled_tile_accesses(m, tiles, 32, 32);
    // The end of a block: each warp's rows through shared memory (with one range of keys, a
    // row's warp is alone, but the path is the same), rows of 136 floats.
    const char* const row = "16*(tx/32) + (tx%32)/4";
    m.accesses.push_back(counted_access("merge: each warp's maxima and sums", "st", row, all, 4, 4));
    m.accesses.push_back(counted_access("merge: maxima and sums read", "ld", row, all, 4, 4));
    m.accesses.push_back(counted_access("merge: merged maxima and sums", "st", row, all, 4, 4));
    m.accesses.push_back(counted_access("merge: output (8-byte stores)", "st",
                                        "(tx/32)*1088 + ((tx%32)/4)*68 + tx%4", all, 8, 32));
    // 16 passes: a warp a row of 128 floats, four a lane.
    m.accesses.push_back(
        counted_access("store: output (16-byte reads)", "ld", "(tx/32)*34 + tx%32", all, 16, 16));
    m.accesses.push_back(counted_access("store: the row's sum and maximum", "ld", "tx/32", all, 4, 32));
    m.notes =
        "As in swizzled_pipeline, conflict-free; a warp has 16 rows here, so each K and V fragment "
        "serves 16 rows instead of 32. The merge's rows are padded by 8 floats, so that a warp's "
        "8-byte stores of eight rows fall in different banks.";
    return m;
  });
}

}  // namespace smemlab::attention::models
