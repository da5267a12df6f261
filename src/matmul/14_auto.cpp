// 14 — the default call. Changed from 13: a call weighs 12's tiles (each configuration with its
// split of K, by 12's model) against 13's streamed product where C has at most 16 rows or 16
// columns, and against the tensor-matmul family's small_k kernel (CUDA cores, sums in FP32)
// where K is at most 64, and against its dot products (step 19: a 4 x 4 patch of C a block, K
// split across the block's threads, sums in FP32), timed by that family's model of them; it
// runs the one predicted fastest. 13 and small_k are modelled as a
// stream of their bytes at a measured share of the device's DRAM peak (for 13 with the partial
// sums of K's ranges written and read again), their multiply-adds at a measured rate, or the
// rounds of loads a block waits for one after another, whichever is longest, plus a cost per
// launch. The choice is kept per shape and device.
// Should buy: 13's speed on thin products, small_k's on short K (12 at K = 1: 5297x1177x1 ran
// at 0.34 of cuBLAS), dot's on products of few outputs, 12's elsewhere, from one call.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "core/device_info.hpp"
#include "core/memo.hpp"
#include "core/occupancy.hpp"
#include "core/per_device.hpp"
#include "matmul/skinny.hpp"
#include "matmul/tuning.hpp"
#include "matmul/variants.hpp"
#include "smemlab/tensor_matmul.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul {
namespace detail {
namespace {

// 13 and tensor-matmul's small_k (a short K on the CUDA cores, its sums in FP32) are modelled
// alike: each streams its operands and C at a share of the device's DRAM peak, or is bound by
// its multiply-adds, or by the rounds of loads a block waits for one after another (a small
// product's time: a few blocks, each a chain of rounds), whichever takes longest, plus a cost
// per launch. scripts/fit_streamed.py fits the four rates to each kernel's times: 13 on float,
// its kernels that stream B along its rows or A along K on an H100
// (docs/results/data/matmul-streamed-skinny-h100.json; these constants were fitted there with the
// rows of the kernel that took three to sixteen columns before the thread-a-row one, and are kept:
// those kernels' rows alone give 5750 ns, 0.92, 35 and 600 ns, docs/perf/sgemm.md says why), its
// kernel for three to sixteen columns (a thread a row of C) on an H200
// (matmul-streamed-skinny-columns-h200.json); small_k in tf32,
// the same kernel on float operands, on an H100 (matmul-streamed-small-k-h100.json).
struct StreamedRates {
  double per_launch_ns;
  double dram_fraction;
  double fma_per_ns_per_sm;
  double round_ns;
};
constexpr StreamedRates kSkinnyRates{6000.0, 0.90, 35.0, 500.0};
constexpr StreamedRates kSkinnyByRowRates{5500.0, 0.72, 50.0, 200.0};
constexpr StreamedRates kSmallKRates{5000.0, 0.68, 70.0, 2400.0};
// small_k's tile of C (any edge tile costs a whole one) and its chunk of K (a round of loads).
constexpr int kSmallKTileM = 32;
constexpr int kSmallKTileN = 256;
constexpr int kSmallKChunk = 16;
// 12's model counts its K-loop, not its stores of C. Where C's rows are not 16-byte aligned its
// tiles store 4 bytes at a time, and at a short K that is the launch's time: 357 bytes/ns (the
// median of 12's short-K rows in docs/results/data/matmul-tiles-short-k-h100.json, by the same
// script), a floor under 12's prediction.
constexpr double kTileUnalignedStoreBytesPerNs = 357.0;
// The DRAM peak of the device they were measured on, for `explain` without a GPU.
constexpr double kMeasuredDramBytesPerNs = 3352.0;

// Rows or columns of C up to which 13 is weighed (the widest it compiles), and the K up to which
// small_k is (four of its 16-element chunks).
constexpr int kThinmost = 16;
constexpr int kShortestK = 64;

struct Device {
  DeviceTuning tiles;
  double dram_bytes_per_ns;
};

Device current_device() { return {current_tuning(), dram_peak_bytes_per_ns()}; }

enum class Kernel { tiles, skinny, small_k, dot };

struct Estimate {
  Kernel kernel = Kernel::tiles;
  TileEstimate tiles;  // 12's choice, for Kernel::tiles
  SkinnyPlan plan;     // for Kernel::skinny
  double ns = 0;
};

double streamed_ns(const StreamedRates& r, int launches, double bytes, double fmas, long long rounds, int sms,
                   double dram_bytes_per_ns) {
  return launches * r.per_launch_ns + std::max({bytes / (r.dram_fraction * dram_bytes_per_ns),
                                                fmas / (r.fma_per_ns_per_sm * sms),
                                                static_cast<double>(rounds) * r.round_ns});
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

Estimate skinny_estimate(int m, int n, int k, const Device& d) {
  Estimate e;
  e.kernel = Kernel::skinny;
  e.plan = plan_skinny(m, n, k, d.tiles.sms);
  e.ns = skinny_predicted_ns(m, n, k, d.tiles.sms, d.dram_bytes_per_ns);
  return e;
}

Estimate small_k_estimate(int m, int n, int k, const Device& d) {
  Estimate e;
  e.kernel = Kernel::small_k;
  const double mn = static_cast<double>(m) * n;
  const long long chunks = ceil_div(k, kSmallKChunk);
  const double padded_fmas = static_cast<double>(ceil_div(m, kSmallKTileM) * kSmallKTileM) *
                             static_cast<double>(ceil_div(n, kSmallKTileN) * kSmallKTileN) * chunks * kSmallKChunk;
  e.ns = streamed_ns(kSmallKRates, 1, 4.0 * (mn + static_cast<double>(m + n) * k), padded_fmas, chunks, d.tiles.sms,
                     d.dram_bytes_per_ns);
  return e;
}

// tensor-matmul's dot products on float operands (its tf32 input, summed in FP32), dense.
Estimate dot_estimate(int m, int n, int k, const Device& d) {
  Estimate e;
  e.kernel = Kernel::dot;
  e.ns = tensor_matmul::dot_predicted_ns(m, n, k, DType::tf32, false, false, d.tiles.sms);
  return e;
}

// Every candidate, fastest first.
std::vector<Estimate> rank(int m, int n, int k, bool b_aligned, bool c_aligned, const Device& d) {
  std::vector<Estimate> out;
  const double store_floor_ns =
      c_aligned ? 0.0 : d.tiles.launch_ns + 4.0 * m * static_cast<double>(n) / kTileUnalignedStoreBytesPerNs;
  // A launch that divides K also zeroes its tiles' counters first: one more operation on the
  // stream, which 12's model (comparing its own choices) leaves out.
  for (const TileEstimate& t : rank_tiles(m, n, k, b_aligned, d.tiles))
    out.push_back({Kernel::tiles, t, {}, std::max(t.ns, store_floor_ns) + (t.parts > 1 ? d.tiles.launch_ns : 0.0)});
  if (std::min(m, n) <= kThinmost) out.push_back(skinny_estimate(m, n, k, d));
  if (k <= kShortestK) out.push_back(small_k_estimate(m, n, k, d));
  // dot only where its blocks all run at once: with more (256^3 on an H200: 13.4 us against the
  // tiles' 10.5 on an H100) its model, fitted on another device than 12's, has chosen it over
  // faster tiles.
  if (tensor_matmul::dot_blocks_fit_at_once(m, n, k, d.tiles.sms)) out.push_back(dot_estimate(m, n, k, d));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ns < b.ns; });
  return out;
}

struct Choice {
  Kernel kernel = Kernel::tiles;
  TileChoice tiles;
};

Choice choose(const GemmArgs& g) {
  // Kept per shape, alignment and device, as 12 keeps its choice.
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  const auto rows_aligned = [](const float* p, int ld) {  // 16-byte rows
    return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % 4 == 0;
  };
  const bool b_aligned = rows_aligned(g.b, g.ldb);
  const bool c_aligned = rows_aligned(g.c, g.ldc);
  using Key = std::tuple<int, int, int, int, bool, bool>;
  static smemlab::detail::Memo<Key, Choice> choices;
  return choices.get(Key{device, g.m, g.n, g.k, b_aligned, c_aligned}, [&] {
    const Estimate best = rank(g.m, g.n, g.k, b_aligned, c_aligned, current_device()).front();
    return Choice{best.kernel, best.tiles.choice};
  });
}

std::string describe(const Estimate& e) {
  char us[32];
  std::snprintf(us, sizeof us, "%.1f us", e.ns / 1000.0);
  switch (e.kernel) {
    case Kernel::skinny:
      return "step 13, skinny (" + std::string(e.plan.few_rows ? "B" : "A") + " streamed, " +
             std::to_string(e.plan.width) + (e.plan.few_rows ? " rows" : " columns") + " a block, K in " +
             std::to_string(e.plan.ranges) + ") " + us;
    case Kernel::small_k:
      return std::string("tensor-matmul/small_k (32 x 256 tiles on the CUDA cores, sums in FP32) ") + us;
    case Kernel::dot:
      return std::string("tensor-matmul/dot (4 x 4 patches of C, K across a block's threads, sums in FP32) ") + us;
    case Kernel::tiles:
      break;
  }
  const TileChoice& c = e.tiles.choice;
  const std::string split = c.split_last_wave ? "last-wave split" : c.slices > 1 ? "K in " + std::to_string(c.slices) : "K whole";
  return "step 12, " + std::string(c.config) + " (" + split + (c.align_b ? ", B copied" : "") + ") " + us;
}

// small_k and dot take float operands as the tensor family's tf32 input, and sum them in FP32
// without rounding them to tf32.
tensor_matmul::GemmArgs as_tensor_args(const GemmArgs& g) {
  return {.input = DType::tf32, .m = g.m, .n = g.n, .k = g.k, .alpha = g.alpha, .a = g.a, .lda = g.lda, .b = g.b,
          .ldb = g.ldb, .beta = g.beta, .c = g.c, .ldc = g.ldc};
}

std::string auto_plan(const Shape& s, DType /*float*/) {
  const auto [m, n, k] = gemm_shape(s);
  const bool on_gpu = device_count() > 0;
  const Device d = on_gpu ? current_device() : Device{device_tunings().front(), kMeasuredDramBytesPerNs};
  const std::string where = on_gpu ? "this GPU" : "the measured device";
  const bool dense_aligned = n % 4 == 0;  // B and C dense: 16-byte rows when n % 4 == 0
  const std::vector<Estimate> ranked = rank(m, n, k, dense_aligned, dense_aligned, d);
  std::string out = describe(ranked.front()) + " predicted on " + where + "; runners-up: ";
  for (std::size_t i = 1; i < std::min<std::size_t>(ranked.size(), 4); ++i) out += (i > 1 ? ", " : "") + describe(ranked[i]);
  return out;
}

}  // namespace

double dram_peak_bytes_per_ns() {
  if (device_count() == 0) return kMeasuredDramBytesPerNs;
  static smemlab::detail::PerDevice<double> peaks;
  return peaks.get([] {
    int ordinal = 0;
    SMEMLAB_CUDA_CHECK(cudaGetDevice(&ordinal));
    return query_device(ordinal).dram_peak_gbs;  // GB/s: bytes per ns
  });
}

double skinny_predicted_ns(int m, int n, int k, int sms, double dram_bytes_per_ns) {
  const SkinnyPlan p = plan_skinny(m, n, k, sms);
  const double groups = std::ceil(static_cast<double>(std::min(m, n)) / p.width);
  const double large = static_cast<double>(std::max(m, n)) * k;  // elements, read once a group
  const double small = static_cast<double>(std::min(m, n)) * k;
  const double c = static_cast<double>(m) * n;
  const double partials = p.ranges > 1 ? 2.0 * p.ranges * c : 0.0;
  return streamed_ns(p.by_row ? kSkinnyByRowRates : kSkinnyRates, p.ranges > 1 ? 2 : 1,
                     4.0 * (groups * large + small + 2.0 * c + partials), groups * p.width * large, p.load_rounds, sms,
                     dram_bytes_per_ns);
}

GemmVariant auto_variant() {
  return {{.family = "matmul",
           .name = "auto",
           .description = "the default call: 12's tiles, 13's streamed product or tensor-matmul's small_k or dot, "
                          "whichever a model predicts fastest",
           .technique = "one call for every shape: the chooser weighs kernels of different kinds by predicted time",
           .smem = SmemKind::dynamic_alloc,
           .why_no_model = "a choice among step 12, step 13 and tensor-matmul's small_k and dot: `explain` of the one "
                           "it names describes that kernel",
           .launch_plan = auto_plan},
          {.run =
               [](const GemmArgs& g, const LaunchContext& ctx) {
                 const Choice c = choose(g);
                 switch (c.kernel) {
                   case Kernel::skinny: launch_skinny(g, ctx); break;
                   case Kernel::small_k: tensor_matmul::detail::launch_small_k_kernel(as_tensor_args(g), ctx); break;
                   case Kernel::dot: tensor_matmul::detail::launch_dot_kernel(as_tensor_args(g), ctx); break;
                   case Kernel::tiles: gemm_tiles(c.tiles, g, ctx); break;
                 }
               },
           .workspace_bytes =
               [](const GemmArgs& g) {
                 const Choice c = choose(g);
                 switch (c.kernel) {
                   case Kernel::skinny: return skinny_workspace_bytes(g);
                   case Kernel::small_k:
                   case Kernel::dot: return std::size_t{0};
                   case Kernel::tiles: break;
                 }
                 return workspace_bytes(c.tiles, g);
               }}};
}

}  // namespace detail

void gemm(const GemmArgs& args, const LaunchContext& ctx) { gemm(find("auto"), args, ctx); }

}  // namespace smemlab::matmul
