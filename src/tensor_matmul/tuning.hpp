#pragma once
// How the tensor-core steps pick their shapes, for `explain`, the benchmark and the tests; not
// part of the installed API: the autotuned step's tile configuration (06_autotuned.cu), the
// clusters step's cluster shape (11_clusters.cu), the split-K step's ranges (12_split_k.cu) and
// the chooser of the default call (16_auto.cpp), whose model is fed with rates measured per
// device (tuning_table.cpp, written from docs/results/data/tensor-tuning-*.json).
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "core/clusters.hpp"
#include "smemlab/launch.hpp"
#include "smemlab/tensor_matmul.hpp"

namespace smemlab::tensor_matmul {

// The autotuned variant's choice for a shape on the current device: a tile configuration by
// name and the raster group; `explain` and the tests read it.
struct TileChoice {
  std::string_view config;
  int group = 0;  // raster group in block-rows; 0: row-major block order
};
[[nodiscard]] TileChoice choose_tiles(int m, int n, int k, int sms);

// The clusters step's cluster shape for an m x n output with this many clusters resident: 2
// (clusters of two blocks on vertically adjacent tiles, B's tile multicast to both) where each
// cluster walks at least 5 pairs of tiles, else 1 (single blocks).
[[nodiscard]] int cluster_rows(int m, int n, int resident_clusters);

// The split-K step's ranges of K for an m x n x k product on `sms` SMs: 1 (K whole) where its
// 128 x 256 tiles keep half the SMs busy, else about SMs / tiles, each range keeping at least
// two rings of the pipeline's stages.
[[nodiscard]] int split_k_ranges(int m, int n, int k, DType input, int sms);

// A range of K keeps at least this many K-steps, so that a ring of stages fills.
inline constexpr int kMinStepsPerRange = 4;
// The most ranges of K one tile's cluster adds on chip (steps 13 and 17): a portable cluster's
// blocks.
inline constexpr int kMaxClusterRanges = kMaxPortableClusterSize;

// Step 17's ranges of K for an m x n x k product on its 64 x 128 tiles, on a device that holds
// `cluster_blocks` at once: 1 (K whole) where the tiles keep half the SMs busy, else the most
// (up to kMaxClusterRanges; every range but the last of at least kMinStepsPerRange K-steps)
// whose clusters are all resident at once: one wave.
[[nodiscard]] int cluster_split_ranges(int m, int n, int k, DType input, const ClusterResidency& cluster_blocks);

// Stream-K's plan (step 18) for `tiles` tiles of `steps` K-steps each on `sms` SMs, one block
// an SM: the tiles of whole waves each taken whole by one block; where a last wave is partial
// (and there is a whole one), its tiles' steps dealt out evenly to as many blocks as give each
// at least kMinStepsPerRange steps, at most every SM and, on average, at most
// kMostStreamPieces blocks a shared tile (the block that ends a tile reads the others' sums one
// after another).
struct StreamKPlan {
  int blocks = 1;         // the launch's
  int stream_tiles = 0;   // the last in raster order, their steps dealt out
  int stream_blocks = 0;  // the first blocks, that share them
};
inline constexpr int kMostStreamPieces = 4;
[[nodiscard]] StreamKPlan stream_k_plan(long long tiles, int steps, int sms);
// Stream-K's scratch for `blocks` blocks that share tiles of bm x bn: a slot of bm x bn floats
// a block, then the flags (each rounded up to 256 bytes).
[[nodiscard]] std::size_t stream_k_slots_bytes(int blocks, int bm, int bn);
[[nodiscard]] std::size_t stream_k_bytes(int blocks, int bm, int bn);

// A kernel the chooser can launch: its name (mma: the mma.sync kernels of step 06, on operands
// copied to 16-byte-aligned rows first where they are not; inplace: the same kernels reading
// unaligned rows where they lie, 4 bytes or one element at a time, and operands stored
// transposed an element at a time; wgmma: the Hopper kernels
// of steps 10 and 12; clusters: step 11's pairs; skinny: step 13's thin tiles; swapped: step
// 14's tf32 tiles of C's transpose; smallk: step 15's CUDA-core tiles), block tile (of C),
// blocks resident per SM, whether it needs compute capability 9.0 (wgmma, or clusters),
// whether the chooser divides its K into ranges, whether it reads unaligned operands in place
// (weighed only for those and for operands stored transposed: on aligned row-major ones it is
// the mma kernel of its tile), whether it is one
// of 13's thin tiles (mma.sync, which divide K themselves: thin_tile_ranges), whether it is one
// of 14's (tf32 only, B read as stored), and whether it runs on the CUDA cores (15's: any
// operands read where they lie, always weighed, K in steps of kCudaCoreKStep elements), and how
// many blocks share one copy of B's tile (11's pairs: TMA multicasts it to both); whether it is
// step 18's stream-K tiles (weighed where its tiles do not fill whole waves), and the kernel
// whose measured rates it runs at, where not its own (stream-K's main loop and epilogue are
// 10's).
struct KernelShape {
  std::string_view name;
  int bm, bn;
  int blocks_per_sm;
  bool hopper;
  bool splits_k;
  bool in_place = false;
  bool thin = false;
  bool swapped = false;
  bool cuda_cores = false;
  int b_sharers = 1;
  bool stream_k = false;
  std::string_view rated_as = {};
};
inline constexpr int kCudaCoreKStep = 16;
// Not a tensor-core kernel: the FP32 family's streamed product for few rows or columns
// (src/matmul/13_skinny.cu), which the default call weighs for tf32 (float operands, summed in
// FP32) where C has at most this many rows or columns, timed by that family's model of it.
inline constexpr std::string_view kCudaCoreSkinny = "skinny_cuda_cores";
inline constexpr int kCudaCoreSkinnyThinmost = 16;
// Step 19's dot products on the CUDA cores (src/tensor_matmul/19_dot.cu): a 4 x 4 patch of C a
// block, K split across its threads; every type, operands read where they lie. Its plan for an
// m x n x k product on `sms` SMs: the blocks, their threads (enough that each loads about four
// elements of K, 32 to 1024, halved while the blocks would not fit on the SMs twice over) and
// the rounds of loads a block waits for.
inline constexpr std::string_view kCudaCoreDot = "dot4x4";
inline constexpr int kDotThreadsPerSm = 1024;  // resident at once: the kernel takes up to 64 registers a thread
struct DotPlan {
  long long blocks = 0;
  int threads = 32;
  int rounds = 1;
};
[[nodiscard]] DotPlan plan_dot(int m, int n, int k, int sms);
// Whether its blocks for that product all fit on the SMs at once (kDotThreadsPerSm threads, at
// most 32 blocks, an SM).
[[nodiscard]] bool dot_blocks_fit_at_once(int m, int n, int k, int sms);
// Its predicted time, fitted as the FP32 family's streamed kernels are (scripts/fit_streamed.py):
// a launch, then the longest of the lines its loads touch in the L1 (a patch's four rows of an
// operand stored along K share lines with the warp's neighbours; stored along M or N, each
// thread's run of four takes a line of its own, and four loads where the rows are not a
// multiple of 4 elements), its multiply-adds, and its waves of blocks each waiting for its
// rounds of loads plus a cost for each block an SM starts; dense operands (rows m, n or k
// elements apart).
[[nodiscard]] double dot_predicted_ns(int m, int n, int k, DType input, bool transpose_a, bool transpose_b, int sms);
// Elements of K a kernel takes a step at a time: 128 bytes for the tensor-core kernels.
[[nodiscard]] int kernel_k_step(const KernelShape& kernel, DType input);
[[nodiscard]] std::span<const KernelShape> kernel_shapes();
// The kernel of that name (UsageError for an unknown one).
[[nodiscard]] const KernelShape& kernel_shape(std::string_view name);

// The ranges of K that 13's thin tiles (16 x 128 where `wide`, else 128 x 16) divide an
// m x n x k product into on `sms` SMs: where the tiles leave SMs idle, as many as give every SM
// one block of 16 x 128 tiles or two of 128 x 16 ones (the fastest counts measured; more blocks
// streaming at once read the DRAM more slowly), at most 8 (a cluster's blocks), each of at least
// 4 K-steps; else 1. A cluster of the blocks of one tile adds the ranges' sums on chip.
[[nodiscard]] int thin_tile_ranges(bool wide, int m, int n, int k, DType input, int sms);

// A kernel and its ranges of K (1: K whole).
// b_column_as_row: B of one column, its elements consecutive, is given to the kernel as the row
// of B's transpose (with_column_vector_b), which the tiles that read Bᵀ as stored take where it
// lies; the chooser weighs both forms.
struct KernelChoice {
  std::string_view kernel;
  int splits = 1;
  bool b_column_as_row = false;
};

// What the model knows of a device: per kernel, multiply-adds per nanosecond per SM with every
// slot busy, for 2-byte inputs and for tf32, the fixed time of a work item (its first copies,
// its last stores), and how fast it reads where the bytes bound its time; and the costs around
// the kernels.
struct KernelRate {
  std::string_view kernel;
  double two_byte;  // multiply-adds per ns per SM, bf16 and half
  double tf32;
  double item_ns;
  double stream;  // the fraction of dram_bytes_per_ns it reads A and B at, memory-bound
};
struct TensorTuning {
  int cc_major, cc_minor, sms;
  double launch_ns;             // once per launch
  double dram_bytes_per_ns;     // reading A and B, storing tiles of C, repacking operands
  double l2_bytes_per_ns;       // the operands' tiles streamed to every busy block at once
  double partial_bytes_per_ns;  // writing and reading split-K's partial sums
  std::span<const KernelRate> kernels;
};
// The measured devices; a device not listed takes the first's numbers.
[[nodiscard]] std::span<const TensorTuning> tensor_tunings();
[[nodiscard]] const TensorTuning& tensor_tuning(int cc_major, int cc_minor, int sms);

// The L2 serves 128-byte lines: a 128-byte row of a TMA box that starts off a line takes two
// requests. lines_per_box_row is the mean number of lines a box row of one operand touches over
// its rows, from the bytes between its rows (`pitch`), its start's offset from a line (`base`)
// and the bytes of a row (`row`; a box holds at most 128 of them): 1 where every row starts on a
// line or lies inside one, up to 2.
[[nodiscard]] double lines_per_box_row(long long pitch, long long base, long long row);
// Those of A and of B as stored, for the model (1 for rows not 16-byte aligned: they are
// copied onto lines first; estimate() counts 1 as well for an operand stored transposed that
// the kernel does not read as stored). a_aligned, b_aligned: the stored rows are 16-byte
// aligned. A TMA kernel that reads an operand as stored repacks it first where they are not,
// and the model charges that.
struct BoxRows {
  double a = 1.0;
  double b = 1.0;
  bool a_aligned = true;
  bool b_aligned = true;
};
// Of a call's operands as stored (a row's bytes along K, or along M or N for Aᵀ and a row-major B).
[[nodiscard]] BoxRows box_rows_of(const GemmArgs& args);
// Of dense row-major operands (lda = k, ldb = n, each starting on a line, as cudaMalloc's do):
// the model's for a shape alone, as dense_rows_aligned.
[[nodiscard]] BoxRows dense_box_rows(int n, int k, DType input);

// The model's account of one choice for an m x n x k product.
struct KernelEstimate {
  KernelChoice choice;
  long long tiles = 0;   // of C
  long long items = 0;   // tiles x ranges of K
  double waves = 0;      // items / resident blocks
  double compute_ns = 0; // the kernel's waves of items, each with its epilogue
  double memory_ns = 0;  // A and B read once at the kernel's share of the DRAM's speed
  double extra_ns = 0;   // launches, repacked operands, partial sums
  double ns = 0;         // predicted: extra + max(compute, memory)
};
// transpose_a, transpose_b: the operands stored transposed (GemmArgs); box_rows: where their
// rows lie (box_rows_of), for the kernels that read them by TMA boxes.
[[nodiscard]] KernelEstimate estimate(const KernelChoice& choice, int m, int n, int k, DType input, bool aligned,
                                      const TensorTuning& device, bool transpose_a = false, bool transpose_b = false,
                                      BoxRows box_rows = {});
// Whether the kernel reads a B stored transposed (N x K) as stored: the wgmma tiles of steps 11
// and 12, K-major in every type; and an A stored transposed (K x M): the same tiles, M-major, in
// bf16 and half. The CUDA-core tiles (cuda_cores) and the in-place tiles (in_place) read both
// where they lie, in every type. Every other operand stored transposed is copied row-major
// first.
[[nodiscard]] bool reads_stored_bt(const KernelShape& kernel);
[[nodiscard]] bool reads_stored_at(const KernelShape& kernel, DType input);
// Whether dense operands (lda = k, ldb = n, bases on 16-byte boundaries) have 16-byte-aligned
// rows in this type: the `aligned` of the model for a shape alone.
[[nodiscard]] bool dense_rows_aligned(int n, int k, DType input);
// Whether the model weighs K in `splits` ranges for this kernel and shape on `sms` SMs: a
// kernel that splits, exactly that many ranges, each of at least 4 K-steps (a ring of stages
// fills), and its items within two waves of resident blocks.
[[nodiscard]] bool weighs_split(const KernelShape& kernel, int splits, int m, int n, int k, DType input, int sms);
// Every choice the model weighs (each kernel whole, the splitting ones also in 2 to 64 ranges
// while weighs_split holds), fastest first; the Hopper kernels only where `hopper`, the
// in-place ones only for unaligned operands or operands stored transposed, 13's 128 x 16 tiles only where n <= 16, 14's
// only in tf32; in tf32 with m or n <= kCudaCoreSkinnyThinmost, also kCudaCoreSkinny, timed by
// the FP32 family's model with the current GPU's DRAM peak (the measured GPU's without one);
// and, in every type and on every device, step 19's dot products (kCudaCoreDot), timed by
// dot_predicted_ns.
[[nodiscard]] std::vector<KernelEstimate> rank_kernels(int m, int n, int k, DType input, bool aligned, bool hopper,
                                                       const TensorTuning& device, bool transpose_a = false,
                                                       bool transpose_b = false, BoxRows box_rows = {});
// The fastest for these arguments on the current device.
[[nodiscard]] KernelChoice choose_kernel(const GemmArgs& args);
// Launches a choice (UsageError for an unknown kernel).
void gemm_kernel(const KernelChoice& choice, const GemmArgs& args, const LaunchContext& ctx);

}  // namespace smemlab::tensor_matmul
