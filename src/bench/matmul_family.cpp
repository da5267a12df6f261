// The matmul families in the benchmark: random inputs, cuBLAS as the reference, every output
// checked (against a double-precision CPU product, or cuBLAS where that would take too long),
// then timed.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>

#include "bench/device_memory.hpp"
#include "bench/families.hpp"
#include "bench/gemm_check.hpp"
#include "bench/verify.hpp"
#include "core/text.hpp"
#include "matmul/tuning.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"
#include "smemlab/matmul.hpp"

namespace smemlab {
namespace {

using GemmLaunch = std::function<void(const matmul::GemmArgs&, const LaunchContext&)>;

// A GEMM launch to verify and time: a registered variant or a tile configuration, with the
// workspace it needs.
struct GemmCandidate {
  std::string name;
  GemmLaunch launch;
  std::function<std::size_t(const matmul::GemmArgs&)> workspace_bytes;
};

// Verifies every candidate at one shape, cuBLAS first as the reference, then times it.
std::vector<BenchRow> run_gemm_candidates(std::string_view family, const Shape& shape,
                                          std::span<const GemmCandidate> gemms,
                                          const BenchContext& ctx) {
  const GemmShape d = gemm_shape(shape);
  const auto mk = static_cast<std::size_t>(d.m) * d.k;
  const auto kn = static_cast<std::size_t>(d.k) * d.n;
  const auto mn = static_cast<std::size_t>(d.m) * d.n;
  ctx.progress(fmt::format("{} {}: inputs and reference", family, gemm_size_label(d)), false);

  DeviceBuffer<float> a(mk);
  DeviceBuffer<float> b(kn);
  DeviceBuffer<float> c(mn);
  fill_uniform(a.data(), mk, 1, -1.0F, 1.0F, ctx.stream);
  fill_uniform(b.data(), kn, 2, -1.0F, 1.0F, ctx.stream);
  std::vector<float> a_host(mk);
  std::vector<float> b_host(kn);
  a.download(a_host, ctx.stream);
  b.download(b_host, ctx.stream);

  // Timed runs use alpha = 1, beta = 0: C is poisoned before each checked run and never read.
  // Operands stored transposed (--transpose) hold the same values read as their transposes.
  const CublasHandle cublas;
  const LaunchContext launch_ctx{ctx.stream, cublas.get()};
  const bool ta = ctx.options.transpose_a;
  const bool tb = ctx.options.transpose_b;
  matmul::GemmArgs args{d.m, d.n, d.k, 1.0F, a.data(), ta ? d.m : d.k, b.data(), tb ? d.k : d.n, 0.0F, c.data(), d.n};
  args.transpose_a = ta;
  args.transpose_b = tb;
  if (ta) a_host = transposed(a_host, d.k, d.m);  // the reference's row-major A
  if (tb) b_host = transposed(b_host, d.n, d.k);
  // One workspace for every candidate, zeroed before each one's first run: a launch leaves it
  // zeroed for the next launch of the same choice, but another choice lays it out differently.
  std::size_t workspace_bytes = 0;
  for (const GemmCandidate& g : gemms) workspace_bytes = std::max(workspace_bytes, g.workspace_bytes(args));
  DeviceBuffer<std::byte> workspace(workspace_bytes);
  if (workspace_bytes > 0) {
    args.workspace = workspace.data();
    args.workspace_size = workspace_bytes;
  }
  const auto with_fresh_workspace = [&](auto launch) {
    return [&, launch, zeroed = false]() mutable {
      if (!zeroed && workspace_bytes > 0)
        SMEMLAB_CUDA_CHECK(cudaMemsetAsync(workspace.data(), 0, workspace_bytes, ctx.stream));
      zeroed = true;
      launch();
    };
  };

  const matmul::GemmVariant& reference = matmul::find("cublas");
  std::vector<GemmRun> runs;
  runs.push_back({std::string(reference.info.name), [&] { matmul::gemm(reference, args, launch_ctx); }});
  for (const GemmCandidate& g : gemms)
    runs.push_back({g.name, with_fresh_workspace([&] { g.launch(args, launch_ctx); })});
  const Workload work{.size = with_operand_layout(gemm_size_label(d), ctx.options),
                      .rate = Rate::flops(2.0 * d.m * d.n * d.k, ctx.device)};
  return measure_gemms(family, DType::f32, work, GemmReference(d.m, d.n, d.k, a_host, b_host),
                       matmul::relative_tolerance(d.k), c, runs, ctx);
}

// A (MxK), B (KxN) and C (MxN) in float.
std::size_t gemm_device_bytes(const Shape& shape, DType /*float*/) {
  const GemmShape g = gemm_shape(shape);
  const auto m = static_cast<std::size_t>(g.m);
  const auto n = static_cast<std::size_t>(g.n);
  const auto k = static_cast<std::size_t>(g.k);
  return (m * k + k * n + m * n) * sizeof(float);
}

// The sweep's candidates: every compiled tile configuration x raster group x way of dividing
// the work, named CONFIG/gGROUP/SPLIT, and at the model's raster group each again with B first
// copied to aligned rows (CONFIG/gGROUP/SPLIT/align-b): every choice the autotuned variant's
// model can make.
constexpr std::array kRasterGroups{0, 8};
constexpr int kAlignedCopyGroup = 8;  // the raster group of the model's choices

// A way to divide a tile's work among blocks: one block (k1), split-K (kN), the last-wave split.
struct Split {
  std::string name;
  int slices;
  bool last_wave;
};

std::vector<Split> splits() {
  std::vector<Split> out{{"k1", 1, false}};
  for (const int slices : matmul::split_k_choices())
    out.push_back({fmt::format("k{}", slices), slices, false});
  out.push_back({"lw", 1, true});
  return out;
}

struct TileCandidate {
  std::string name;
  matmul::TileChoice choice;
};

const std::vector<TileCandidate>& tile_candidates() {
  static const std::vector<TileCandidate> all = [] {
    std::vector<TileCandidate> out;
    for (const auto config : matmul::tile_configs())
      for (const int group : kRasterGroups)
        for (const bool align_b : {false, true}) {
          if (align_b && group != kAlignedCopyGroup) continue;
          for (const Split& split : splits())
            out.push_back(
                {fmt::format("{}/g{}/{}{}", config, group, split.name, align_b ? "/align-b" : ""),
                 {config, group, split.slices, split.last_wave, align_b}});
        }
    return out;
  }();
  return all;
}

// `smemlab list --family matmul-tiles`: a legend of the names' parts, then per configuration its
// raster groups and splits.
std::string tile_listing(std::size_t columns) {
  const auto paragraph = [&](std::string_view text) { return wrap(text, 0, columns) + "\n"; };
  // A name part and its meaning, the meaning wrapped under itself.
  const auto part = [&](std::string_view name, std::string_view meaning) {
    const std::string head = fmt::format("  {:<10}", name);
    return head + wrap(meaning, head.size(), columns) + "\n";
  };
  std::string out = paragraph(fmt::format(
      "matmul-tiles: every choice that the autotuned matmul (matmul/autotuned) can make, timed "
      "against cuBLAS. A choice is named matmul-tiles/CONFIG/gGROUP/SPLIT[/align-b], such as "
      "matmul-tiles/{}; 'smemlab list --family matmul-tiles --names' prints every name in full.",
      tile_candidates().front().name));
  out += "\nCONFIG, BMxBNxBK_sS_wWMxWN_tTMxTN[_zz][_b1]:\n";
  out += part("BMxBNxBK", "block tile: BM x BN outputs of C a block, K-steps of BK");
  out += part(
      "sS",
      "S pipeline stages: the copies of the next S - 1 K-steps in flight while one is computed");
  out += part("wWMxWN", "warp tile: WM x WN outputs a warp");
  out += part("tTMxTN", "thread tile: TM x TN outputs a thread");
  out += part("_zz",
              "serpentine FMA order: odd rows of the thread tile backwards, so that consecutive "
              "FMAs share an operand at every row change too");
  out += part("_b1", "registers sized for one block per SM instead of two");
  out += "gGROUP, the raster group:\n";
  out += part("g0", "blocks in row-major order");
  out += part(fmt::format("g{}", kAlignedCopyGroup),
              fmt::format("blocks down groups of {} block-rows first, so that the blocks resident "
                          "together share their tiles of A and B in L2",
                          kAlignedCopyGroup));
  out += "SPLIT, how a tile's work is divided among blocks:\n";
  out += part("k1", "one block a tile");
  out += part("kN",
              "split-K: N blocks a tile, each summing 1/N of K; the last to finish adds the parts");
  out +=
      part("lw",
           "the last-wave split: whole tiles in full waves of resident blocks, then the tiles of "
           "the last, partial wave divided along K so that their blocks fill a wave");
  out += "/align-b, after the split:\n";
  out += part("align-b",
              "B first copied to rows on 128-byte boundaries when its rows are not 16-byte "
              "aligned (N not a multiple of 4), so that the K-loop copies it 16 bytes at a time");
  out += "\n";
  const VariantInfo& reference = matmul::find("cublas").info;
  out += fmt::format("matmul-tiles/{}  {}\n", reference.name, reference.description);
  std::string split_names;
  for (const Split& split : splits()) split_names += (split_names.empty() ? "" : " ") + split.name;
  for (const auto config : matmul::tile_configs()) {
    const matmul::TileShape shape = matmul::tile_shape(config);
    out += fmt::format("{}: {} threads, {} per SM\n", config, shape.threads,
                       count_of(shape.blocks_per_sm, "block"));
    for (const int group : kRasterGroups) {
      const std::string head = fmt::format("  g{:<4}", group);
      out += head +
             wrap(split_names + (group == kAlignedCopyGroup ? ", each also with /align-b" : ""),
                  head.size(), columns) +
             "\n";
    }
  }
  return out;
}

std::vector<VariantInfo> tile_variants() {
  std::vector<VariantInfo> out;
  out.push_back(matmul::find("cublas").info);
  out.back().family = "matmul-tiles";
  for (const auto& c : tile_candidates())
    out.push_back({.family = "matmul-tiles",
                   .name = c.name,
                   .description = "a configuration the autotuned variant can choose",
                   .technique = "tile configuration / raster group / split of K",
                   .smem = SmemKind::dynamic_alloc,
                   .why_no_model = "a configuration of the autotuned variant; each configuration's "
                                   "measured counters are in docs/perf/sgemm.md"});
  return out;
}

}  // namespace

const BenchFamily& matmul_family() {
  static const BenchFamily family(
      {.name = "matmul",
       .form = SizeForm::gemm,
       // The tutorials' sizes, and the SGEMM targets: squares (4095 and 4097 are multiples of no
       // tile), a tall and a wide product.
       .sizes = {"512", "2048", "4096", "4097", "8192x1024x4096"},
       .full_sizes = {"256", "512", "1024", "2048", "4095", "4096", "4097", "8192", "8192x1024x4096",
                      "1024x8192x4096"},
       .explain_size = "2048",
       .variants = [] { return infos_of(matmul::variants()); },
       .device_bytes = gemm_device_bytes,
       .run = [](const BenchFamily& self, const Shape& shape, DType /*float*/,
                 std::span<const std::string_view> names, const BenchContext& ctx) {
         std::vector<GemmCandidate> gemms;
         for (const auto name : names) {
           const matmul::GemmVariant& v = matmul::find(name);
           gemms.push_back({std::string(name),
                            [&v](const matmul::GemmArgs& g, const LaunchContext& lc) { matmul::gemm(v, g, lc); },
                            [&v](const matmul::GemmArgs& g) { return matmul::workspace_bytes(v, g); }});
         }
         return run_gemm_candidates(self.name(), shape, gemms, ctx);
       }});
  return family;
}

const BenchFamily& matmul_tiles_family() {
  static const BenchFamily family(
      {.name = "matmul-tiles",
       .form = SizeForm::gemm,
       // One or more shapes of each class the tuning table distinguishes.
       .sizes = {"1024", "4096", "4097"},
       .full_sizes = {"1024", "2048", "4095", "4096", "4097", "8192", "8192x1024x4096", "1024x8192x4096"},
       .explain_size = "2048",
       .in_default_run = false,
       .variants = tile_variants,
       .device_bytes = gemm_device_bytes,
       .run = [](const BenchFamily& self, const Shape& shape, DType /*float*/,
                 std::span<const std::string_view> names, const BenchContext& ctx) {
         std::vector<GemmCandidate> gemms;
         for (const auto name : names) {
           const auto& all = tile_candidates();
           const auto it = std::find_if(all.begin(), all.end(), [&](const TileCandidate& c) { return c.name == name; });
           if (it == all.end()) throw UsageError(fmt::format("unknown tile candidate '{}'", name));
           gemms.push_back({it->name,
                            [choice = it->choice](const matmul::GemmArgs& g, const LaunchContext& lc) {
                              matmul::gemm_tiles(choice, g, lc);
                            },
                            [choice = it->choice](const matmul::GemmArgs& g) { return matmul::workspace_bytes(choice, g); }});
         }
         return run_gemm_candidates(self.name(), shape, gemms, ctx);
       },
       .listing = tile_listing});
  return family;
}

}  // namespace smemlab
