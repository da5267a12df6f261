// 12 — autotuned tiles. Changed from 11: no single configuration is best everywhere. Large
// squares want big tiles (more FMAs per shared load); shapes with fewer tiles than slots leave
// most of the GPU idle with them and want smaller tiles, or their K divided among more blocks:
// split-K (several blocks per tile) or the last-wave split (whole tiles in full waves, the
// last partial wave's tiles divided), the parts summed by the last block of each tile. B with
// unaligned rows (N not a multiple of 4) may first be copied to aligned rows, so that the
// K-loop copies it 16 bytes at a time. Configurations of 11's kernel from 32x32 to 256x128 are
// compiled, and a model of the launch's time (tile_model.cpp), fed with each configuration's
// speed measured on the device, picks one with its decomposition per shape. Should buy: up to
// 2x over 11 at 1024^3 (64 tiles of 128x128 for 132 SMs), several times on deep products with a
// small C (256x256x65536: 4 tiles); little at 4096^3; 10-15% at 4095^3 from B's aligned copy.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "core/gemm_operands.hpp"
#include "matmul/gemm_launch.cuh"
#include "matmul/tuning.hpp"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"
#include "core/memo.hpp"
#include "core/occupancy.hpp"
#include "core/per_device.hpp"

namespace smemlab::matmul {
namespace {

using detail::launch_config;
using detail::TileConfig;

struct NamedConfig {
  std::string_view name;
  TileShape shape;
  void (*launch)(const GemmArgs&, const LaunchContext&, const TileChoice&);
  std::size_t (*workspace)(const GemmArgs&, const TileChoice&);
};

template <class Cfg>
constexpr NamedConfig named(std::string_view name) {
  return {name, {Cfg::kBM, Cfg::kBN, Cfg::kBK, Cfg::kThreads, Cfg::kMinBlocks, Cfg::kStages}, launch_config<Cfg>, detail::config_workspace_bytes<Cfg>};
}

// Names: block tile MxNxK, stages, warp tile, thread tile, _zz for the serpentine FMA order,
// _b1 where the registers are sized for one block per SM instead of two.
// Template arguments: BM, BN, BK, WM, WN, TM, TN, stages, blocks per SM the registers must
// allow, serpentine. Configurations that no measured shape preferred are not compiled; the
// sweeps that dropped them are in docs/perf/sgemm.md.
constexpr std::array kConfigs{
    // Large squares: 128 accumulators a thread, one block of 8 warps per SM.
    named<TileConfig<128, 256, 8, 32, 128, 8, 16, 3, 1, true>>("128x256x8_s3_w32x128_t8x16_zz"),
    named<TileConfig<128, 256, 8, 32, 128, 8, 16, 4, 1, true>>("128x256x8_s4_w32x128_t8x16_zz"),
    named<TileConfig<256, 128, 8, 64, 64, 16, 8, 3, 1>>("256x128x8_s3_w64x64_t16x8"),
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 1, true>>("128x128x8_s3_w32x64_t8x8_zz_b1"),
    // 64 accumulators a thread, two or three blocks per SM: finer tiles, and B's 4-byte copies
    // (unaligned rows) hidden by more warps.
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 2, true>>("128x128x8_s3_w32x64_t8x8_zz"),
    named<TileConfig<64, 128, 8, 32, 64, 8, 8, 3, 3>>("64x128x8_s3_w32x64_t8x8"),
    named<TileConfig<64, 128, 8, 32, 64, 8, 8, 3, 3, true>>("64x128x8_s3_w32x64_t8x8_zz"),
    named<TileConfig<128, 64, 8, 32, 64, 8, 8, 3, 2, true>>("128x64x8_s3_w32x64_t8x8_zz"),
    // Small and skinny outputs: few outputs a block, so that many blocks share the SMs.
    named<TileConfig<64, 64, 8, 32, 32, 8, 4, 4, 4>>("64x64x8_s4_w32x32_t8x4"),
    named<TileConfig<32, 128, 8, 32, 32, 4, 8, 4, 4>>("32x128x8_s4_w32x32_t4x8"),
    named<TileConfig<128, 32, 8, 64, 32, 8, 8, 4, 6, true>>("128x32x8_s4_w64x32_t8x8_zz"),
    named<TileConfig<64, 32, 8, 32, 32, 4, 8, 4, 6>>("64x32x8_s4_w32x32_t4x8"),
    named<TileConfig<32, 64, 8, 32, 32, 4, 8, 4, 8>>("32x64x8_s4_w32x32_t4x8"),
    named<TileConfig<32, 32, 8, 32, 32, 4, 8, 4, 12>>("32x32x8_s4_w32x32_t4x8"),
    // Outputs of a few dozen columns, split along K: 128 accumulators a thread in 4 warps (two
    // blocks per SM), so that each shared-memory read feeds more FMAs.
    named<TileConfig<256, 64, 8, 64, 64, 16, 8, 3, 2>>("256x64x8_s3_w64x64_t16x8"),
};

constexpr std::array kConfigNames = [] {
  std::array<std::string_view, kConfigs.size()> out{};
  for (std::size_t i = 0; i < kConfigs.size(); ++i) out[i] = kConfigs[i].name;
  return out;
}();

const NamedConfig& find_config(std::string_view name) {
  for (const auto& c : kConfigs)
    if (c.name == name) return c;
  throw UsageError("unknown matmul tile configuration '" + std::string(name) + "'");
}

void check_choice(const TileChoice& choice) {
  if (choice.group < 0 || choice.slices < 1)
    throw UsageError("a tile choice needs group >= 0 and slices >= 1");
}

}  // namespace

DeviceTuning current_tuning() {
  static smemlab::detail::PerDevice<DeviceTuning> tunings;
  return tunings.get([] {
    const int sms = smemlab::detail::sm_count();
    DeviceTuning tuning = device_tuning(smemlab::detail::device_attribute<cudaDevAttrComputeCapabilityMajor>(),
                                        smemlab::detail::device_attribute<cudaDevAttrComputeCapabilityMinor>(), sms);
    tuning.sms = sms;  // another device's speeds per SM, this device's SMs
    return tuning;
  });
}

std::span<const std::string_view> tile_configs() { return kConfigNames; }

TileShape tile_shape(std::string_view config) { return find_config(config).shape; }

TileChoice choose_tiles(const GemmArgs& args) {
  // Weighing every configuration and split takes tens of microseconds, as long as the launch of
  // a small product: a call repeated with the same shape, alignment and device (the workspace's
  // size, then the launch; a layer called every step) looks its choice up instead.
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  const bool b_aligned = detail::rows_are_16b_aligned(args.b, args.ldb);
  using Key = std::tuple<int, int, int, int, bool>;
  static smemlab::detail::Memo<Key, TileChoice> choices;
  return choices.get(Key{device, args.m, args.n, args.k, b_aligned},
                     [&] { return plan_tiles(args.m, args.n, args.k, b_aligned, current_tuning()).choice; });
}

std::size_t workspace_bytes(const TileChoice& choice, const GemmArgs& args) {
  check_choice(choice);
  return find_config(choice.config).workspace(args, choice);
}

std::size_t workspace_bytes(const GemmArgs& args) { return workspace_bytes(choose_tiles(args), args); }

void gemm_tiles(const TileChoice& choice, const GemmArgs& args, const LaunchContext& ctx) {
  const NamedConfig& config = find_config(choice.config);
  check_choice(choice);
  validate(args);
  smemlab::detail::require_row_major(args.transpose_a, args.transpose_b, "the tiled kernel");
  config.launch(args, ctx, choice);
}

namespace detail {
namespace {

// The next three choices of a ranking, each with its predicted time: why the first won.
std::string runners_up(const std::vector<TileEstimate>& ranked) {
  std::string out;
  for (std::size_t i = 1; i < std::min<std::size_t>(ranked.size(), 4); ++i) {
    const TileChoice& c = ranked[i].choice;
    const std::string split = c.split_last_wave ? "last-wave split" : c.slices > 1 ? "K in " + std::to_string(c.slices) : "K whole";
    char us[32];
    std::snprintf(us, sizeof us, "%.1f", ranked[i].ns / 1000.0);
    out += (i > 1 ? ", " : "") + std::string(c.config) + " (" + split + (c.align_b ? ", B copied" : "") + ") " + us + " us";
  }
  return out;
}

// explain: the model's choice for dense matrices of this shape on the GPU at hand, or on the
// device the speeds were measured on when there is none.
std::string autotuned_plan(const Shape& s, DType /*float*/) {
  const auto [m, n, k] = gemm_shape(s);
  int count = 0;
  DeviceTuning device = device_tunings().front();
  std::string where = "the measured device";
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    device = current_tuning();
    where = "this GPU";
  } else {
    (void)cudaGetLastError();  // no device: not an error for a description
  }
  const std::vector<TileEstimate> ranked = rank_tiles(m, n, k, n % 4 == 0, device);  // B dense: 16-byte rows when n % 4 == 0
  const TileEstimate& e = ranked.front();
  const TileShape t = tile_shape(e.choice.config);
  std::string split = "one block per tile";
  if (e.parts > 1) {
    const long long divided = (e.blocks - e.tiles) / (e.parts - 1);
    split = (e.choice.split_last_wave ? "last-wave split: " : "split-K: ") + std::to_string(divided) + " of the tiles " +
            "divided into " + std::to_string(e.parts) + " blocks, each about " +
            std::to_string((k + e.parts - 1) / e.parts) + " of K" +
            (e.spread_sum ? ", every block summing a share of its tile's parts" : ", the last block summing the parts");
  }
  if (e.choice.align_b && n % 4 != 0) split += ", B first copied to 16-byte-aligned rows";
  char waves[32];
  std::snprintf(waves, sizeof waves, "%.2f", e.waves);
  char us[32];
  std::snprintf(us, sizeof us, "%.1f", e.ns / 1000.0);
  return "tile configuration " + std::string(e.choice.config) + " (" + std::to_string(e.tiles) + " tiles of " +
         std::to_string(t.bm) + "x" + std::to_string(t.bn) + "), " + split + ", raster group " +
         std::to_string(e.choice.group) + "; " + waves + " waves of resident blocks; predicted " + us + " us on " +
         where + " (compute capability " + std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor) +
         ", " + std::to_string(device.sms) + " SMs); runners-up: " + runners_up(ranked);
}

}  // namespace

GemmVariant autotuned_variant() {
  return {{.family = "matmul",
           .name = "autotuned",
           .description = "11's kernel with tiles and the split of K chosen per shape by a model",
           .technique = "autotuning: a model of waves, tiles and K per block, fed with each "
                        "configuration's measured speed; split-K when C has too few tiles for the SMs",
           .smem = SmemKind::dynamic_alloc,
           .why_no_model = "its tile configuration is chosen by shape (see 'launches'); each "
                           "configuration's measured counters are in docs/perf/sgemm.md",
           .launch_plan = autotuned_plan},
          {.run = [](const GemmArgs& g, const LaunchContext& ctx) { gemm_tiles(choose_tiles(g), g, ctx); },
           .workspace_bytes = [](const GemmArgs& g) { return workspace_bytes(g); }}};
}

}  // namespace detail
}  // namespace smemlab::matmul
