// 16 — the default call: one chooser over every kernel of the family. Changed from 06, which
// chose among three mma.sync tiles by waves alone: the candidates are now also the Hopper
// kernels (10's 128 x 256 tiles, 12's 128 x 128, 64 x 128 and 64 x 64 tiles with K whole or in ranges,
// 11's clusters, 13's thin tiles for products with few rows or columns, 14's tf32 tiles that
// read B as stored, 15's CUDA-core tiles for a short K, 18's stream-K tiles where a partial
// wave follows whole ones, 19's CUDA-core dot products for few outputs (their own model,
// dot_predicted_ns); in tf32, also the FP32 family's
// streamed product for few rows or columns, timed by that family's model) and, for operands whose
// rows are not 16-byte aligned, 06's small and medium tiles reading
// them in place instead of copying them first; each is timed by a model of the launch fed with
// rates measured on the device (tuning_table.cpp). The model counts, per candidate:
// - waves: items (tiles x ranges of K) over resident blocks; the busiest block's items each
//   take a fixed time, their K-loop and their epilogue. The K-loop runs at the kernel's
//   measured rate, or slower where the busy blocks' operand tiles, (BM + BN) x 128 bytes a
//   K-step each (B's share halved for 11's pairs, which multicast it), exceed the L2's speed;
//   the L2 serves 128-byte lines, and a TMA box row that starts off one takes two, so an
//   operand whose rows are not a multiple of 128 bytes apart counts up to twice its bytes;
//   the tiles stored at once share the DRAM's speed;
// - bytes: A and B read once at the speed the kernel reaches where bytes bound it (a share of
//   the DRAM's, measured at 16 x 8192 x 8192 and 8192 x 16 x 8192), a floor under its time;
// - the extra launches and traffic: split-K's partial sums (none for 13, whose clusters add
//   them on chip), repacked or transposed operands
//   (for a small product, the copy launches cost more than the product: reading the rows in
//   place, at a slower rate, saves them).
// Should buy: each shape runs at the speed of the family's best kernel for it; on a GPU without
// wgmma only the mma.sync kernels are weighed.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/memo.hpp"
#include "core/occupancy.hpp"
#include "core/per_device.hpp"
#include "smemlab/error.hpp"
#include "matmul/skinny.hpp"
#include "tensor_matmul/partial_sums.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tensor_map.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul {
namespace {

constexpr std::array<KernelShape, 17> kKernels{{
    {"mma128x256", 128, 256, 1, false, false},
    {"mma128x128", 128, 128, 1, false, false},
    {"mma64x64", 64, 64, 2, false, false},
    {"inplace128x128", 128, 128, 1, false, false, true},
    {"inplace64x64", 64, 64, 2, false, false, true},
    {"wgmma128x256", 128, 256, 1, true, true},
    {"wgmma128x128", 128, 128, 1, true, true},
    {"wgmma64x128", 64, 128, 1, true, true},
    {"wgmma64x64", 64, 64, 1, true, true},
    {"clusters128x256", 128, 256, 1, true, false, false, false, false, false, 2},
    {"skinny16x128", 16, 128, 3, true, false, false, true},
    {"skinny128x16", 128, 16, 3, true, false, false, true},
    {"swapped256x128", 256, 128, 1, true, true, false, false, true},
    {"swapped128x128", 128, 128, 1, true, true, false, false, true},
    {"swapped128x64", 128, 64, 1, true, true, false, false, true},
    {"smallk32x256", 32, 256, 3, false, false, false, false, false, true},
    {"streamk128x256", 128, 256, 1, true, false, false, false, false, false, 1, true, "wgmma128x256"},
}};
// Ranges of K weighed for the splitting kernels: about 1.5x apart.
constexpr std::array kSplits{2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
// 06's in-place tiles read an operand stored transposed an element at a time, a warp's loads
// spread over 8 of its stored rows: measured at 0.19 of the DRAM's speed where that operand is
// the traffic (47 x 11785 x 9073 with Bᵀ, bf16, inplace64x64: 214 MB in 360 us on an H100,
// docs/results/data/tensor-auto-random-7129-nt-in-place-h100.json).
constexpr double kInPlaceTransposedStream = 0.19;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

const KernelRate* find_rate(const TensorTuning& device, std::string_view kernel) {
  for (const auto& r : device.kernels)
    if (r.kernel == kernel) return &r;
  return nullptr;
}

// The rates a kernel runs at: its own, or those of the kernel it is rated as.
const KernelRate* find_rate(const TensorTuning& device, const KernelShape& kernel) {
  return find_rate(device, kernel.rated_as.empty() ? kernel.name : kernel.rated_as);
}

const KernelRate& rate_of(const TensorTuning& device, const KernelShape& kernel) {
  if (const KernelRate* r = find_rate(device, kernel)) return *r;
  throw UsageError(fmt::format("no measured rate for tensor-core kernel '{}'", kernel.name));
}

// The current device's tuning, and whether it runs the Hopper kernels.
struct DevicePlan {
  TensorTuning tuning;  // with this device's SMs, for a device the rates were not measured on
  bool hopper;
  const char* where;
};
DevicePlan device_plan() {
  if (!device_supported()) return {tensor_tunings().front(), true, "the measured GPU"};
  static smemlab::detail::PerDevice<DevicePlan> plans;
  return plans.get([] {
    const int sms = smemlab::detail::sm_count();
    const int major = smemlab::detail::device_attribute<cudaDevAttrComputeCapabilityMajor>();
    const int minor = smemlab::detail::device_attribute<cudaDevAttrComputeCapabilityMinor>();
    TensorTuning tuning = tensor_tuning(major, minor, sms);
    tuning.sms = sms;
    return DevicePlan{tuning, detail::why_no_wgmma().empty(), "this GPU"};
  });
}

std::string choice_name(const KernelChoice& c) {
  if (c.kernel == kCudaCoreDot) return "dot4x4 (4 x 4 patches of C on the CUDA cores, K across a block's threads)";
  if (c.kernel == kCudaCoreSkinny)
    return fmt::format("matmul/skinny on the CUDA cores (FP32 sums, K in {} ranges)", c.splits);
  return c.splits > 1 ? fmt::format("{} (K in {} ranges)", c.kernel, c.splits) : fmt::format("{} (K whole)", c.kernel);
}

// Every choice the model weighs for a call, fastest first, as choose_kernel takes it: the
// operands as the kernels see them (the copies of those stored transposed have aligned rows),
// and B of one column whose elements are consecutive weighed as is and as the row of its
// transpose (the tiles that read Bᵀ as stored take the row where it lies, others, such as the
// FP32 streamed product, the column): the faster form's list, and which form it is.
struct CallRanking {
  std::vector<KernelEstimate> ranked;
  bool b_column_as_row = false;
};

GemmArgs column_as_row(const GemmArgs& args) {
  return smemlab::detail::with_column_vector_b(args, dtype_bytes(args.input));
}

bool has_row_form(const GemmArgs& args, const GemmArgs& as_row) {
  return as_row.transpose_b != args.transpose_b || as_row.ldb != args.ldb;
}

bool rows_aligned_as_read(const GemmArgs& g) {
  return operands_16b_aligned(smemlab::detail::as_copied(g, dtype_bytes(g.input)));
}

CallRanking rank_call(const GemmArgs& args, const DevicePlan& d) {
  const auto rank = [&](const GemmArgs& g) {
    return rank_kernels(g.m, g.n, g.k, g.input, rows_aligned_as_read(g), d.hopper, d.tuning, g.transpose_a,
                        g.transpose_b, box_rows_of(g));
  };
  CallRanking out{rank(args)};
  const GemmArgs as_row = column_as_row(args);
  if (has_row_form(args, as_row)) {
    auto row = rank(as_row);
    if (!row.empty() && (out.ranked.empty() || row.front().ns < out.ranked.front().ns)) out = {std::move(row), true};
  }
  if (out.ranked.empty()) throw std::logic_error("the tensor-core chooser has no kernel with measured rates");
  return out;
}

std::string launch_plan(const Shape& s, DType type) {
  const GemmShape g = gemm_shape(s);
  const DevicePlan d = device_plan();
  // Dense row-major operands where cudaMalloc places them, on 256-byte boundaries (only the
  // address's alignment is read), as gemm reads them.
  alignas(256) static const std::byte kDense[1] = {};
  const GemmArgs dense{.input = type, .m = g.m, .n = g.n, .k = g.k, .a = kDense, .lda = g.k, .b = kDense, .ldb = g.n};
  const CallRanking call = rank_call(smemlab::detail::with_row_vector_a(dense, dtype_bytes(type)), d);
  const auto& ranked = call.ranked;
  const KernelEstimate& best = ranked.front();
  std::string out = call.b_column_as_row ? "B's one column read as the row of its transpose; " : "";
  const DotPlan dot = plan_dot(g.m, g.n, g.k, d.tuning.sms);
  out +=
      best.choice.kernel == kCudaCoreDot
          ? fmt::format("{}: {} blocks of {} threads, each waiting for {} rounds of loads, on the {} SMs of {}; "
                        "predicted {:.1f} us",
                        choice_name(best.choice), dot.blocks, dot.threads, dot.rounds, d.tuning.sms, d.where,
                        best.ns / 1000.0)
      : best.choice.kernel == kCudaCoreSkinny
          ? fmt::format("{}: {} blocks a range of K, on the {} SMs of {}; predicted {:.1f} us", choice_name(best.choice),
                        best.tiles, d.tuning.sms, d.where, best.ns / 1000.0)
          : fmt::format("{}: {} tiles, {} items, {:.2f} waves on the {} SMs of {}; predicted {:.1f} us",
                        choice_name(best.choice), best.tiles, best.items, best.waves, d.tuning.sms, d.where,
                        best.ns / 1000.0);
  if (best.memory_ns > best.compute_ns) out += " (memory-bound)";
  out += "; runners-up:";
  for (std::size_t i = 1; i < std::min<std::size_t>(ranked.size(), 4); ++i)
    out += fmt::format(" {} {:.1f} us{}", choice_name(ranked[i].choice), ranked[i].ns / 1000.0, i < 3 ? "," : "");
  return out;
}

}  // namespace

std::span<const KernelShape> kernel_shapes() { return kKernels; }

int kernel_k_step(const KernelShape& kernel, DType input) {
  return kernel.cuda_cores ? kCudaCoreKStep : detail::k_step(input);
}

const KernelShape& kernel_shape(std::string_view name) {
  for (const auto& s : kKernels)
    if (s.name == name) return s;
  throw UsageError(fmt::format("unknown tensor-core kernel '{}'", name));
}

const TensorTuning& tensor_tuning(int cc_major, int cc_minor, int sms) {
  const auto all = tensor_tunings();
  for (const auto& d : all)
    if (d.cc_major == cc_major && d.cc_minor == cc_minor && d.sms == sms) return d;
  return all.front();
}

namespace {

// Operands stored transposed copied row-major first: a launch each, every element read and
// written once at DRAM speed.
double row_major_copies_ns(int m, int n, int k, DType input, const TensorTuning& device, bool transpose_a,
                           bool transpose_b) {
  const double elements =
      (transpose_a ? static_cast<double>(m) * k : 0.0) + (transpose_b ? static_cast<double>(k) * n : 0.0);
  return device.launch_ns * ((transpose_a ? 1 : 0) + (transpose_b ? 1 : 0)) +
         2.0 * static_cast<double>(dtype_bytes(input)) * elements / device.dram_bytes_per_ns;
}

}  // namespace

namespace {
bool is_wgmma_tile(const KernelShape& kernel) { return kernel.hopper && !kernel.thin && !kernel.swapped; }
}  // namespace

bool reads_stored_bt(const KernelShape& kernel) {
  return is_wgmma_tile(kernel) || kernel.cuda_cores || kernel.in_place;
}

bool reads_stored_at(const KernelShape& kernel, DType input) {
  return (is_wgmma_tile(kernel) && input != DType::tf32) || kernel.cuda_cores || kernel.in_place;
}

double lines_per_box_row(long long pitch, long long base, long long row) {
  constexpr long long kLine = 128;
  // Row r starts (base + r pitch) mod 128 bytes into a line: a cycle of 128 / gcd(pitch, 128) rows.
  const long long cycle = kLine / std::gcd(pitch % kLine == 0 ? kLine : pitch % kLine, kLine);
  long long straddling = 0;
  const long long in_box = std::min<long long>(row, kLine);
  for (long long r = 0; r < cycle; ++r) straddling += (base + r * pitch) % kLine + in_box > kLine ? 1 : 0;
  return 1.0 + static_cast<double>(straddling) / static_cast<double>(cycle);
}

BoxRows dense_box_rows(int n, int k, DType input) {
  const auto elem = static_cast<long long>(dtype_bytes(input));
  return {lines_per_box_row(k * elem, 0, k * elem), lines_per_box_row(n * elem, 0, n * elem)};
}

BoxRows box_rows_of(const GemmArgs& args) {
  const auto elem = static_cast<long long>(dtype_bytes(args.input));
  const bool a_aligned = detail::rows_16b_aligned(args.a, args.lda, args.input);
  const bool b_aligned = detail::rows_16b_aligned(args.b, args.ldb, args.input);
  const auto lines = [&](bool aligned, const void* p, int ld, long long contiguous) {
    if (!aligned) return 1.0;  // copied to rows on lines first
    return lines_per_box_row(ld * elem, static_cast<long long>(reinterpret_cast<std::uintptr_t>(p) % 128),
                             contiguous * elem);
  };
  return {lines(a_aligned, args.a, args.lda, args.transpose_a ? args.m : args.k),
          lines(b_aligned, args.b, args.ldb, args.transpose_b ? args.k : args.n), a_aligned, b_aligned};
}

KernelEstimate estimate(const KernelChoice& choice, int m, int n, int k, DType input, bool aligned,
                        const TensorTuning& device, bool transpose_a, bool transpose_b, BoxRows box_rows) {
  const KernelShape& s = kernel_shape(choice.kernel);
  const KernelRate& r = rate_of(device, s);
  const auto elem = static_cast<double>(dtype_bytes(input));
  const int k_step = kernel_k_step(s, input);
  const int splits = s.thin       ? thin_tile_ranges(s.bm < s.bn, m, n, k, input, device.sms)
                     : s.splits_k ? choice.splits
                                  : 1;
  const detail::KRanges ranges = detail::k_ranges(k, k_step, splits);
  KernelEstimate e;
  e.choice = {choice.kernel, ranges.count};
  e.tiles = ceil_div(m, s.bm) * ceil_div(n, s.bn);
  e.items = e.tiles * ranges.count;
  const long long slots = static_cast<long long>(s.blocks_per_sm) * device.sms;
  e.waves = static_cast<double>(e.items) / static_cast<double>(slots);
  const double slot_rate = (input == DType::tf32 ? r.tf32 : r.two_byte) / s.blocks_per_sm;
  const auto active = static_cast<double>(std::min(e.items, slots));  // blocks at work at once
  // The CUDA-core kernel's loop stops at K's end inside its last chunk.
  const double steps =
      s.cuda_cores ? static_cast<double>(k) / k_step : static_cast<double>(ranges.steps_per_range);
  // A K-step's tiles, in the L2's lines: the TMA boxes of the Hopper tiles (not 13's, mma.sync)
  // count each row that starts off a line twice; operands copied first lie on lines.
  const bool boxes = s.hopper && !s.thin;
  const bool a_as_stored = aligned && (!transpose_a || reads_stored_at(s, input));
  const bool b_as_stored = aligned && (transpose_b ? reads_stored_bt(s) : input != DType::tf32 || s.swapped);
  const double a_lines = boxes && a_as_stored ? box_rows.a : 1.0;
  const double b_lines = boxes && b_as_stored ? box_rows.b : 1.0;
  const double tile_bytes = (s.bm * a_lines + static_cast<double>(s.bn) / s.b_sharers * b_lines) * k_step * elem;
  const double k_loop_ns =
      std::max(steps * s.bm * s.bn * k_step / slot_rate, steps * tile_bytes * active / device.l2_bytes_per_ns);
  const double store_ns = 4.0 * s.bm * s.bn * active / device.dram_bytes_per_ns;  // the tiles stored at once
  const double round_ns = r.item_ns + k_loop_ns + store_ns;
  e.compute_ns = static_cast<double>(ceil_div(e.items, slots)) * round_ns;
  const StreamKPlan plan = s.stream_k ? stream_k_plan(e.tiles, ranges.steps_per_range, device.sms) : StreamKPlan{};
  if (plan.stream_tiles > 0) {
    // Not fitted: 10's rates. The whole waves' rounds, then the busiest block's share of the last
    // wave's steps, two pieces' fixed time, the tiles it ends stored, and the shared tiles' sums:
    // each sharing block writes its slot, and the block that ends a tile reads the others'
    // (ceil(sharers / tiles) at most), all at once through the L2.
    const auto sharers = static_cast<double>(plan.stream_blocks);
    const auto shared = static_cast<double>(plan.stream_tiles);
    const double step_ns = k_loop_ns / std::max(steps, 1.0);
    const double stream_steps = std::ceil(shared * steps / sharers);
    const double slots_ns = 4.0 * s.bm * s.bn * sharers / device.l2_bytes_per_ns;
    e.compute_ns = static_cast<double>(e.tiles / device.sms) * round_ns + stream_steps * step_ns + 2.0 * r.item_ns +
                   std::ceil(shared / sharers) * store_ns + (1.0 + std::ceil(sharers / shared)) * slots_ns;
  }
  const double mn = static_cast<double>(m) * n;
  const double a_stream = s.in_place && transpose_a ? kInPlaceTransposedStream : 1.0;
  const double b_stream = s.in_place && transpose_b ? kInPlaceTransposedStream : 1.0;
  e.memory_ns = elem * (static_cast<double>(m) * k / a_stream + static_cast<double>(k) * n / b_stream) /
                (device.dram_bytes_per_ns * r.stream);
  e.extra_ns = device.launch_ns * (plan.stream_tiles > 0 ? 2 : 1);  // stream-K zeroes its flags first, a launch
  // The second kernel reads every range's sums and writes C; a cluster adds them on chip.
  if (ranges.count > 1 && !s.thin)
    e.extra_ns += device.launch_ns + (ranges.count + 1.0) * 4.0 * mn / device.partial_bytes_per_ns;
  // Not fitted (the rates come from aligned shapes): an unaligned operand copied to aligned
  // rows first, counted as both; on wgmma in tf32, B's transpose replaces B's copy. The
  // in-place kernels copy nothing: their narrower loads are in their fitted rate.
  // The wgmma kernels (every Hopper kernel but 13's, which are mma.sync, and 14's, which read B
  // as stored) read B's transpose.
  const bool transposes_b = s.hopper && !s.thin && !s.swapped && input == DType::tf32 && !transpose_b;
  e.extra_ns += row_major_copies_ns(m, n, k, input, device, transpose_a && !reads_stored_at(s, input),
                                    transpose_b && !reads_stored_bt(s));
  // An operand stored transposed that the TMA tiles read as stored, with rows not 16-byte
  // aligned: repacked as stored first (a launch, its elements read and written). Where the
  // row-major operands are unaligned, the copy of both below counts it already.
  const auto repack_ns = [&](double elements) {
    return device.launch_ns + 2.0 * elem * elements / device.dram_bytes_per_ns;
  };
  if (aligned && boxes && transpose_a && reads_stored_at(s, input) && !box_rows.a_aligned)
    e.extra_ns += repack_ns(static_cast<double>(m) * k);
  if (aligned && boxes && transpose_b && reads_stored_bt(s) && !box_rows.b_aligned)
    e.extra_ns += repack_ns(static_cast<double>(k) * n);
  if (!aligned && !s.in_place && !s.cuda_cores)
    e.extra_ns += device.launch_ns + 2.0 * elem *
                                         (static_cast<double>(m) * k + (transposes_b ? 0.0 : static_cast<double>(k) * n)) /
                                         device.dram_bytes_per_ns;
  if (transposes_b)  // wgmma reads B's transpose
    e.extra_ns += device.launch_ns + 8.0 * k * n / device.dram_bytes_per_ns;
  e.ns = e.extra_ns + std::max(e.compute_ns, e.memory_ns);
  return e;
}

namespace {

// Step 19's blocks resident on an SM at once (at most 32).
double dot_blocks_per_sm(const DotPlan& plan) { return std::min(32, kDotThreadsPerSm / plan.threads); }

// Step 19's fitted rates (scripts/fit_streamed.py over docs/results/data/tensor-dot-bf16-h200.json,
// tensor-dot-tf32-h200.json, tensor-dot-bf16-tt-h200.json and tensor-dot-half-tn-h200.json, an
// NVIDIA H200): the launch's fixed time, the lines its loads touch per ns per SM, its
// multiply-adds per ns per SM, a round of loads, and what each block costs the SM that runs it
// (tens of thousands of small blocks take longer to start than to run).
constexpr double kDotLaunchNs = 4000.0;
constexpr double kDotLinesPerNsPerSm = 2.38;
constexpr double kDotFmaPerNsPerSm = 19.5;
constexpr double kDotRoundNs = 596.0;
constexpr double kDotBlockNs = 75.0;

}  // namespace

bool dot_blocks_fit_at_once(int m, int n, int k, int sms) {
  const DotPlan plan = plan_dot(m, n, k, sms);
  return static_cast<double>(plan.blocks) <= sms * dot_blocks_per_sm(plan);
}

double dot_predicted_ns(int m, int n, int k, DType input, bool transpose_a, bool transpose_b, int sms) {
  const DotPlan plan = plan_dot(m, n, k, sms);
  const auto elem = static_cast<double>(dtype_bytes(input));
  // The L1's wavefronts (128-byte lines a warp's load touches) a thread's element of K costs:
  // from an operand stored along K, four rows' loads whose lanes share lines; from one stored
  // along M or N (dense: rows m or n elements apart), a load (four where the rows are not a
  // multiple of 4 elements: a load an element) whose 32 lanes each touch their own line, or
  // share lines where the rows are short.
  constexpr double kLine = 128.0;
  const auto across = [&](int row) { return (row % 4 == 0 ? 1.0 : 4.0) * std::min(1.0, row * elem / kLine); };
  const double lines = (transpose_a ? across(m) : 4.0 * elem / kLine) + (transpose_b ? 4.0 * elem / kLine : across(n));
  const double per_element = static_cast<double>(plan.blocks) * k;
  const double fmas = 16.0 * per_element;
  const double waves = std::ceil(static_cast<double>(plan.blocks) / (sms * dot_blocks_per_sm(plan)));
  const double blocks_per_sm = static_cast<double>(plan.blocks) / sms;
  return kDotLaunchNs + std::max({per_element * lines / (kDotLinesPerNsPerSm * sms), fmas / (kDotFmaPerNsPerSm * sms),
                                  waves * plan.rounds * kDotRoundNs + blocks_per_sm * kDotBlockNs});
}

bool dense_rows_aligned(int n, int k, DType input) {
  const auto chunk = static_cast<int>(16 / dtype_bytes(input));
  return k % chunk == 0 && n % chunk == 0;
}

bool weighs_split(const KernelShape& s, int splits, int m, int n, int k, DType input, int sms) {
  const detail::KRanges r = detail::k_ranges(k, detail::k_step(input), splits);
  return s.splits_k && r.count == splits && r.steps_per_range >= kMinStepsPerRange &&
         ceil_div(m, s.bm) * ceil_div(n, s.bn) * splits <= 2LL * s.blocks_per_sm * sms;
}

std::vector<KernelEstimate> rank_kernels(int m, int n, int k, DType input, bool aligned, bool hopper,
                                         const TensorTuning& device, bool transpose_a, bool transpose_b,
                                         BoxRows box_rows) {
  std::vector<KernelEstimate> out;
  for (const KernelShape& s : kKernels) {
    // The in-place kernels are the others' tiles where rows are aligned, unless an operand is
    // stored transposed: they read it as stored, an element at a time.
    const bool in_place_differs = !aligned || transpose_a || transpose_b;
    if ((s.hopper && !hopper) || (s.in_place && !in_place_differs) || (s.swapped && input != DType::tf32)) continue;
    // A kernel the device's rates do not include yet is not weighed, so that a sweep can measure
    // it first (the committed table has a rate for every kernel: a cpu test checks it).
    if (find_rate(device, s) == nullptr) continue;
    // Stream-K without a partial last wave after a whole one is 10's kernel, weighed already.
    if (s.stream_k && stream_k_plan(ceil_div(m, s.bm) * ceil_div(n, s.bn),
                                    detail::k_ranges(k, kernel_k_step(s, input), 1).steps_per_range, device.sms)
                              .stream_tiles == 0)
      continue;
    // 13's 128 x 16 tiles only where C's columns fit one tile: wider, the model predicts their
    // K-loop up to 3x too fast (every larger shape of the sweep).
    if (s.thin && s.bn < s.bm && n > s.bn) continue;
    out.push_back(estimate({s.name, 1}, m, n, k, input, aligned, device, transpose_a, transpose_b, box_rows));
    for (const int splits : kSplits) {
      if (!weighs_split(s, splits, m, n, k, input, device.sms)) break;
      out.push_back(estimate({s.name, splits}, m, n, k, input, aligned, device, transpose_a, transpose_b, box_rows));
    }
  }
  {
    const DotPlan plan = plan_dot(m, n, k, device.sms);
    KernelEstimate e;
    e.choice = {kCudaCoreDot, 1};
    e.tiles = e.items = plan.blocks;
    e.waves = static_cast<double>(plan.blocks) / (static_cast<double>(device.sms) * dot_blocks_per_sm(plan));
    // Its model's time whole, as the streamed product's below; it reads every operand where it lies.
    e.compute_ns = e.memory_ns = dot_predicted_ns(m, n, k, input, transpose_a, transpose_b, device.sms);
    e.ns = e.compute_ns;
    out.push_back(e);
  }
  if (input == DType::tf32 && std::min(m, n) <= kCudaCoreSkinnyThinmost) {
    const matmul::detail::SkinnyPlan plan = matmul::detail::plan_skinny(m, n, k, device.sms);
    KernelEstimate e;
    e.choice = {kCudaCoreSkinny, plan.ranges};
    e.tiles = plan.blocks;
    e.items = plan.blocks * plan.ranges;
    // Its model's time whole: neither of the tensor kernels' two terms alone.
    e.compute_ns = e.memory_ns =
        matmul::detail::skinny_predicted_ns(m, n, k, device.sms, matmul::detail::dram_peak_bytes_per_ns());
    e.extra_ns = row_major_copies_ns(m, n, k, input, device, transpose_a, transpose_b);  // it reads rows
    e.ns = e.compute_ns + e.extra_ns;
    out.push_back(e);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ns < b.ns; });
  return out;
}

KernelChoice choose_kernel(const GemmArgs& args) {
  // The choice depends on the shape, the type, the operands' alignment (in both forms of a B of
  // one column, rank_call) and the device: a call repeated with them (the workspace's size, then
  // the launch; a layer called every step) looks it up instead of weighing every candidate again.
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  const GemmArgs as_row = column_as_row(args);
  const BoxRows rows = box_rows_of(args);
  const BoxRows row_form = box_rows_of(as_row);
  using Key = std::tuple<int, int, int, int, DType, bool, bool, bool, double, double, bool, bool, bool, bool, double,
                         bool>;
  static smemlab::detail::Memo<Key, KernelChoice> choices;
  const Key key{device,
                args.m,
                args.n,
                args.k,
                args.input,
                rows_aligned_as_read(args),
                args.transpose_a,
                args.transpose_b,
                rows.a,
                rows.b,
                rows.a_aligned,
                rows.b_aligned,
                has_row_form(args, as_row),
                rows_aligned_as_read(as_row),
                row_form.b,
                row_form.b_aligned};
  return choices.get(key, [&] {
    const CallRanking call = rank_call(args, device_plan());
    const KernelChoice& best = call.ranked.front().choice;
    return KernelChoice{best.kernel, best.splits, call.b_column_as_row};
  });
}

void gemm_kernel(const KernelChoice& choice, const GemmArgs& args, const LaunchContext& ctx) {
  if (choice.kernel == kCudaCoreDot) {  // reads every layout where it lies
    detail::launch_dot_kernel(args, ctx);
    return;
  }
  const bool keeps_bt = choice.kernel != kCudaCoreSkinny && reads_stored_bt(kernel_shape(choice.kernel));
  const bool keeps_at = choice.kernel != kCudaCoreSkinny && reads_stored_at(kernel_shape(choice.kernel), args.input);
  if ((args.transpose_a && !keeps_at) || (args.transpose_b && !keeps_bt)) {
    smemlab::detail::with_row_major_operands(
        args, dtype_bytes(args.input), ctx.stream, [&](const GemmArgs& plain) { gemm_kernel(choice, plain, ctx); },
        !keeps_bt, !keeps_at);
    return;
  }
  if (choice.kernel == kCudaCoreSkinny) {
    if (args.input != DType::tf32) throw std::logic_error("the CUDA-core skinny kernel takes float operands (tf32) only");
    char* const scratch = args.workspace == nullptr ? nullptr : detail::workspace_start(args);
    const std::size_t skipped = scratch == nullptr ? 0 : static_cast<std::size_t>(scratch - static_cast<char*>(args.workspace));
    matmul::detail::launch_skinny({args.m, args.n, args.k, args.alpha, static_cast<const float*>(args.a), args.lda,
                                   static_cast<const float*>(args.b), args.ldb, args.beta, args.c, args.ldc, scratch,
                                   scratch == nullptr ? 0 : args.workspace_size - std::min(skipped, args.workspace_size)},
                                  ctx);
    return;
  }
  const KernelShape& s = kernel_shape(choice.kernel);
  if (s.cuda_cores) {
    detail::launch_small_k_kernel(args, ctx);
  } else if (!s.hopper) {
    detail::launch_mma_kernel(s.name, args, ctx);
  } else if (s.thin) {
    detail::launch_skinny_kernel(s.name, args, ctx);
  } else if (s.swapped) {
    detail::launch_swapped_kernel(s.name, choice.splits, args, ctx);
  } else if (s.stream_k) {
    detail::launch_stream_k_kernel(s.name, args, ctx);
  } else if (!s.splits_k) {
    detail::launch_cluster_pairs(args, ctx);
  } else {
    detail::launch_wgmma_kernel(s.name, choice.splits, args, ctx);
  }
}

namespace detail {

TensorVariant auto_variant() {
  return {{.family = "tensor-matmul",
           .name = "auto",
           .description = "the default call: a model of waves, bytes and measured rates picks the kernel, its tile "
                          "and the ranges of K among every step's kernels",
           .technique = "a chooser that generalises: predicted time from the shape, not a table of shapes",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .why_no_model = "a choice among the other steps' kernels: `explain` of the step it names models that "
                           "kernel",
           .launch_plan = launch_plan,
           .reads_transposed = true},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            const KernelChoice choice = choose_kernel(g);
            gemm_kernel(choice, choice.b_column_as_row ? column_as_row(g) : g, ctx);
          }};
}

}  // namespace detail
}  // namespace smemlab::tensor_matmul
