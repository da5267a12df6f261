#pragma once
// The shared-memory bank analyzer: for an access pattern written as an integer expression of
// threadIdx (tx, ty, tz), how many wavefronts each warp's access needs, against the ideal, and
// which lanes collide in which bank. The rules were checked against hardware counters
// (tests/data/bank_conflicts_h200.csv).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smemlab/error.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::banks {

constexpr int kBanks = 32;
constexpr int kBankBytes = 4;
constexpr int kWarp = 32;
// The most shared memory one block can address on any GPU so far (compute capability 9.0 and
// 10.0, after opting in): the analyzer rejects addresses beyond it.
constexpr std::int64_t kMaxSharedBytes = 227 * 1024;

// A syntax error, with the 1-based column of the offending character.
class ExpressionError : public UsageError {
 public:
  ExpressionError(const std::string& message, std::size_t column)
      : UsageError(message), column_(column) {}
  [[nodiscard]] std::size_t column() const { return column_; }

 private:
  std::size_t column_;
};

// Where C leaves an integer operation undefined and the GPU gives a result all the same: a
// shift by a count outside 0..bits-1 (PTX's shl and shr clamp the count to the width, so a
// left shift gives 0 and a right shift 0 or -1), or a signed result that does not fit (the
// integer units wrap it). `kind` names the case ("shift count", "overflow"); `message` says
// what happened the first time, with the operands.
struct ArithmeticWarning {
  std::string kind;
  std::string message;
};

// An integer expression of tx, ty, tz with + - * / % << >> & | ^ ~ ( ) and constants as C
// writes them (17, 0x11, 021), C precedence, computed as the GPU computes the expression's
// type: a signed integer of 32
// bits (int, the type of most index arithmetic in kernels) or 64 (long long), wrapping where
// C leaves the result undefined, with a warning. At most kMaxLength characters, with
// parentheses and unary operators nested at most kMaxNesting deep: limits that keep the
// parser's and evaluator's recursion far inside any thread's stack.
//
// rand(k) stands for data the addresses depend on (a histogram's bins): a value uniform in
// 0..k-1 for each thread and each rand() of the expression. A *draw* is one such set of values
// for all of them, one possible execution; the evaluation's `draw` (0, 1, ...) picks it, the
// same on every machine.
class Expression {
 public:
  static constexpr std::size_t kMaxLength = 4096;
  static constexpr int kMaxNesting = 256;
  // Throws ExpressionError pointing at the mistake, at the limit exceeded, or at a constant
  // that does not fit in `bits` (32 or 64; UsageError for another width).
  static Expression parse(std::string_view text, int bits = 32);
  // Throws UsageError on division by zero, or on the one division that overflows (the most
  // negative value by -1), whose result the GPU leaves unspecified. Each kind of undefined
  // operation met is added once to `warnings`, when given.
  [[nodiscard]] std::int64_t eval(std::int64_t tx, std::int64_t ty, std::int64_t tz,
                                  std::vector<ArithmeticWarning>* warnings = nullptr,
                                  std::uint64_t draw = 0) const;
  [[nodiscard]] const std::string& text() const { return text_; }
  // Whether it uses rand(): its addresses then differ from draw to draw.
  [[nodiscard]] bool random() const { return random_; }
  [[nodiscard]] int bits() const { return bits_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
  int bits_ = 32;
  bool random_ = false;
};

struct Block {
  int x = 32;
  int y = 1;
  int z = 1;
  [[nodiscard]] int threads() const { return x * y * z; }
};

// The instruction that makes the access.
enum class Op {
  load,      // ld.shared of `width` bytes a lane
  store,     // st.shared
  ldmatrix,  // ldmatrix.sync.aligned.m8n8: lanes 0..8N-1 each give one 16-byte row of N 8x8 matrices
  stmatrix,  // stmatrix.sync.aligned.m8n8: the same addresses, written
  cp_async_ca,  // the shared-memory write of cp.async.ca (4, 8 or 16 bytes a lane from global memory)
  cp_async_cg,  // the same of cp.async.cg (16 bytes, bypassing L1)
  // An increment of the block's own shared memory, atomicAdd(p, 1) with its result unused, as
  // it compiles (ATOMS.POPC.INC, which adds the count of the lanes on one word once): served as
  // a load is, as many wavefronts as the busiest bank has distinct words. Measured for this
  // form only; other atomics (a value added, CAS) may serve lanes on one word apart.
  atom,
  // The same increment through distributed shared memory, the address space of a cluster's
  // blocks (ATOM on shared::cluster addresses, even where the word is the block's own): each
  // lane on its own, lanes on one word included: as many wavefronts as the busiest bank has
  // lanes.
  atom_cluster,
};

struct Instruction {
  Op op = Op::load;
  int matrices = 0;    // ldmatrix / stmatrix: 1, 2 or 4 (.x1, .x2, .x4)
  bool trans = false;  // .trans: transposes the registers, the addresses are the same

  // Whether the access writes shared memory (counted with the stores by the hardware; atomics
  // have a counter of their own).
  [[nodiscard]] bool writes() const { return op != Op::load && op != Op::ldmatrix && !atomic(); }
  [[nodiscard]] bool atomic() const { return op == Op::atom || op == Op::atom_cluster; }
  [[nodiscard]] bool matrix() const { return op == Op::ldmatrix || op == Op::stmatrix; }
  // The lanes whose addresses the instruction uses: 8 per matrix, else the whole warp.
  [[nodiscard]] int address_lanes() const { return matrix() ? 8 * matrices : 32; }
  // The spelling parse_instruction reads: "ld", "st", "ldmatrix.x4.trans", "stmatrix.x2",
  // "cp.async.ca", "cp.async.cg", "atom", "atom.cluster".
  [[nodiscard]] std::string name() const;
};

// Throws UsageError naming the accepted spellings.
[[nodiscard]] Instruction parse_instruction(std::string_view text);

struct Access {
  Expression expression;  // element index (times width), or a byte address with `bytes`
  Block block;
  int width = 4;  // bytes per lane: 1, 2, 4, 8 or 16 (16 for ldmatrix and stmatrix: one row)
  bool bytes = false;
  std::int64_t base = 0;  // byte offset added to every address
  Instruction instruction{};
  // The swizzle a TMA copy applies to a tile (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B), 0 for none:
  // 16-byte chunk bits 4.. of each byte address are XORed with bits 7.., as many bits as the
  // span has chunks beyond the first (128 bytes: chunk c of 128-byte row r moves to c ^ (r % 8)).
  // Addresses are taken relative to a base aligned to 8 spans, as TMA requires.
  int swizzle = 0;
  // Which draw of the expression's rand() values the addresses take.
  std::uint64_t draw = 0;
};

// The byte address where a tile written with `swizzle` (0, 32, 64 or 128) keeps `address`.
[[nodiscard]] constexpr std::int64_t swizzled(std::int64_t address, int swizzle) {
  return swizzle == 0 ? address : address ^ (((address >> 7) & (swizzle / 16 - 1)) << 4);
}

// Throws UsageError for a width that is not 1, 2, 4, 8 or 16 (16 for ldmatrix and stmatrix; at
// 4, 8 or 16 for cp.async.ca, 16 for cp.async.cg, 4 for atomics), a block outside 1..1024 threads, a matrix
// instruction in a block of partial warps (every lane must execute it), or a swizzle other than
// 0, 32, 64 or 128.
void validate(const Access& access);

struct Collision {
  int bank;
  int phase;                      // index into WarpResult::phases
  std::vector<int> lanes;         // lanes that need this bank in that phase
  std::vector<std::int64_t> words;  // the distinct 4-byte words they ask it for (byte address / 4)
};

// Why a phase's lanes are served in wavefronts of their own rather than with the phase before.
enum class Split {
  none,           // the first phase of the warp
  bytes,          // together they ask for more than 128 distinct bytes: no extra wavefront
  half_warps,     // 16-byte accesses: each half-warp is served on its own
  merge_conflict, // 8-byte accesses: the two half-warps together would have a bank conflict
  lane_groups,    // 16-byte accesses: some 4 consecutive lanes ask for more than two words
  matrices,       // ldmatrix / stmatrix: each 8x8 matrix is served on its own
  quarters,       // cp.async.cg: each quarter-warp is written on its own
};
[[nodiscard]] std::string_view split_reason(Split split);

// Lanes served together: as many wavefronts as the busiest bank has distinct words.
struct Phase {
  int first_lane;
  int lanes;                      // lanes in the phase: 32, or 16 / 8 for wide accesses
  int wavefronts;
  int ideal;                      // ceil(distinct bytes asked for / 128)
  Split split;
  // Per wavefront, per bank: the lane served there, or -1 (for the map).
  std::vector<std::vector<int>> grid;
  // cp.async.cg: 32-byte sectors written in part, a wavefront each.
  int partial_sectors = 0;
};

struct WarpResult {
  int warp;
  int active_lanes;
  int wavefronts;
  int ideal;  // the fewest wavefronts the distinct bytes asked for need: ceil(bytes / 128)
  int ways;   // the worst bank's number of distinct words in one phase (1 = conflict-free)
  std::vector<Collision> collisions;  // banks asked for more than one word in a phase
  std::vector<Phase> phases;
};

struct Analysis {
  std::vector<WarpResult> warps;
  // What the expression's arithmetic did that C leaves undefined, once a kind, with the thread
  // where it first happened.
  std::vector<std::string> warnings;
  [[nodiscard]] long long wavefronts() const;
  [[nodiscard]] long long ideal() const;
};

// Throws UsageError when an address is negative, not a multiple of the width, beyond
// kMaxSharedBytes, or overflows 64-bit arithmetic.
[[nodiscard]] Analysis analyze(const Access& access);

// Draws averaged where an expression uses rand(): for a histogram's patterns the mean of 10,000
// draws is within about 0.2% of its expectation.
constexpr int kDraws = 10000;

// The wavefronts and ideal of the access, totalled over its warps: as analyze() counts them, or
// their mean over kDraws draws where the expression uses rand().
struct Expected {
  double wavefronts = 0;
  double ideal = 0;
};
[[nodiscard]] Expected expected(const Access& access);

// The figure of the tutorial “Shared Memory” for one warp: banks as columns, wavefronts as rows,
// lane numbers inside.
[[nodiscard]] std::string render_map(const WarpResult& warp, int width);
// The analysis as a text table: each warp's wavefronts, ideal and ways, and why it needs more
// than the ideal (phases served apart, bank conflicts with their lanes); consecutive warps with
// the same row are shown once. The map of warp `map_warp` follows when that is not negative.
[[nodiscard]] std::string render_table(const Access& access, const Analysis& analysis, int map_warp);
// The same as a JSON document, every warp with its phases and collisions, the map as a grid.
[[nodiscard]] std::string render_json(const Access& access, const Analysis& analysis, int map_warp);

// ---- The bank microbenchmark (bench family "banks") ----
// Every warp loads element lane * stride of `width` bytes, over and over; the size of a run is
// the stride. "ideal" (4-byte loads at stride 1, conflict-free) is the reference.
struct AccessVariant {
  VariantInfo info;
  int width;
  bool fixed_stride_one;  // the reference ignores the stride
};

[[nodiscard]] std::span<const AccessVariant> access_variants();

constexpr int kAccessUnroll = 8;  // loads per loop iteration

// Launches `blocks` x `threads` threads; each does iterations x kAccessUnroll loads of element
// lane * stride and writes the 32-bit sum of everything it loaded to out[thread].
void launch_access_kernel(int width, int stride, int iterations, int blocks, int threads,
                          unsigned int* out, cudaStream_t stream);
// Shared memory the kernel needs for a stride, in bytes.
[[nodiscard]] std::size_t access_kernel_smem(int width, int stride);
// What a lane's sum must be.
[[nodiscard]] unsigned int expected_access_sum(int width, int stride, int lane, int iterations);

}  // namespace smemlab::banks
