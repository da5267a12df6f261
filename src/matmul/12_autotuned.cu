// 12 — autotuned tiles. Changed from 11: no single configuration is best everywhere. Large
// squares want big tiles (more FMAs per shared load); shapes with fewer tiles than SMs leave
// most of the GPU idle with them and want smaller tiles or split-K (blockIdx.z takes a slice
// of K; a second kernel sums the slices). Several configurations of 11's kernel are compiled,
// and a table swept on the device (src/matmul/tuning_table.cpp) names one per shape class:
// small, unaligned, square, tall, wide (classify() below). Should buy: up to 2x over 11 at
// 1024^3 (64 tiles of 128x128 for 132 SMs); little at 4096^3.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <cstdlib>

#include "matmul/tiled_gemm.cuh"
#include "matmul/variants.hpp"
#include "smemlab/error.hpp"
#include "core/occupancy.hpp"

namespace smemlab::matmul {
namespace {

using detail::launch_config;
using detail::TileConfig;

struct NamedConfig {
  std::string_view name;
  int block_m;  // the block tile of C, for the split-K choice
  int block_n;
  void (*launch)(const GemmArgs&, const LaunchContext&, int group, int slices);
};

template <class Cfg>
constexpr NamedConfig named(std::string_view name) {
  return {name, Cfg::kBM, Cfg::kBN, launch_config<Cfg>};
}

// Names: block tile MxNxK, stages, warp tile, thread tile, _zz for the serpentine FMA order,
// _b1 where the registers are sized for one block per SM instead of two.
// Template arguments: BM, BN, BK, WM, WN, TM, TN, stages, blocks per SM the registers must
// allow, serpentine.
constexpr std::array kConfigs{
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 2, 2>>("128x128x8_s2_w32x64_t8x8"),
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 2>>("128x128x8_s3_w32x64_t8x8"),
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 4, 2>>("128x128x8_s4_w32x64_t8x8"),
    named<TileConfig<128, 256, 8, 32, 128, 8, 16, 3, 1>>("128x256x8_s3_w32x128_t8x16"),
    named<TileConfig<128, 256, 8, 32, 128, 8, 16, 3, 1, true>>("128x256x8_s3_w32x128_t8x16_zz"),
    named<TileConfig<128, 256, 8, 32, 128, 8, 16, 4, 1, true>>("128x256x8_s4_w32x128_t8x16_zz"),
    named<TileConfig<256, 128, 8, 64, 64, 16, 8, 3, 1, true>>("256x128x8_s3_w64x64_t16x8_zz"),
    named<TileConfig<64, 128, 8, 32, 64, 8, 8, 3, 3, true>>("64x128x8_s3_w32x64_t8x8_zz"),
    named<TileConfig<128, 64, 8, 32, 64, 8, 8, 3, 2, true>>("128x64x8_s3_w32x64_t8x8_zz"),
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 1, true>>("128x128x8_s3_w32x64_t8x8_zz_b1"),
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 4, 1, true>>("128x128x8_s4_w32x64_t8x8_zz_b1"),
    named<TileConfig<64, 128, 8, 32, 64, 8, 8, 4, 3, true>>("64x128x8_s4_w32x64_t8x8_zz"),
    named<TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 2, true>>("128x128x8_s3_w32x64_t8x8_zz"),
    named<TileConfig<128, 256, 8, 32, 128, 8, 16, 4, 1>>("128x256x8_s4_w32x128_t8x16"),
    named<TileConfig<128, 256, 8, 32, 64, 8, 8, 3, 1>>("128x256x8_s3_w32x64_t8x8"),
    named<TileConfig<256, 128, 8, 64, 64, 16, 8, 3, 1>>("256x128x8_s3_w64x64_t16x8"),
    named<TileConfig<128, 64, 8, 32, 64, 8, 8, 3, 2>>("128x64x8_s3_w32x64_t8x8"),
    named<TileConfig<64, 128, 8, 32, 64, 8, 8, 3, 3>>("64x128x8_s3_w32x64_t8x8"),
    named<TileConfig<64, 64, 8, 32, 32, 8, 4, 4, 4>>("64x64x8_s4_w32x32_t8x4"),
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

// Each slice keeps at least this much of K: shorter slices spend more on the sum than they
// save.
constexpr int kMinSliceK = 256;
// Slices chosen from the waves keep at least this much of K: at 512^3, two slices of 256 ran
// 13% slower than one (the sum and the second launch cost more than the idle SMs).
constexpr int kMinWaveSliceK = 1024;
// A bound on the workspace (slices x m x n floats) and on the sum's reads.
constexpr int kMaxSlices = 64;

}  // namespace

std::string_view shape_class_name(ShapeClass shape) {
  switch (shape) {
    case ShapeClass::small: return "small";
    case ShapeClass::unaligned: return "unaligned";
    case ShapeClass::square: return "square";
    case ShapeClass::tall: return "tall";
    case ShapeClass::wide: return "wide";
  }
  return "?";
}

ShapeClass classify(int m, int n, int sms, bool b_rows_aligned) {
  const long long tiles = static_cast<long long>((m + 127) / 128) * ((n + 127) / 128);
  if (tiles < sms) return ShapeClass::small;
  if (!b_rows_aligned) return ShapeClass::unaligned;
  if (m >= 4LL * n) return ShapeClass::tall;
  if (n >= 4LL * m) return ShapeClass::wide;
  return ShapeClass::square;
}

std::span<const std::string_view> tile_configs() { return kConfigNames; }

TileChoice choose_tiles(ShapeClass shape, int cc_major, int cc_minor, int sms) {
  const auto table = tuning_table();
  const auto on = [](const TuningEntry& e, int major, int minor, int count) {
    return e.cc_major == major && e.cc_minor == minor && e.sms == count;
  };
  const bool known = std::any_of(table.begin(), table.end(), [&](const TuningEntry& e) {
    return on(e, cc_major, cc_minor, sms);
  });
  const TuningEntry& first = table.front();
  for (const auto& e : table) {
    const bool device_matches = known ? on(e, cc_major, cc_minor, sms) : on(e, first.cc_major, first.cc_minor, first.sms);
    if (device_matches && e.shape == shape) return e.choice;
  }
  throw std::logic_error("the matmul tuning table has no entry for shape class " +
                         std::string(shape_class_name(shape)));
}

namespace {

// What the tuning table is keyed by, for the current device.
struct DeviceKey {
  int cc_major = 0;
  int cc_minor = 0;
  int sms = 0;
};

DeviceKey current_device_key() {
  DeviceKey key;
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&key.cc_major, cudaDevAttrComputeCapabilityMajor, device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&key.cc_minor, cudaDevAttrComputeCapabilityMinor, device));
  key.sms = smemlab::detail::sm_count();
  return key;
}

}  // namespace

TileChoice choose_tiles(const GemmArgs& args) {
  const DeviceKey d = current_device_key();
  TileChoice choice = choose_tiles(classify(args.m, args.n, d.sms, detail::rows_are_16b_aligned(args.b, args.ldb)),
                                   d.cc_major, d.cc_minor, d.sms);
  choice.slices = std::max(choice.slices, split_k_for_waves(choice.config, args.m, args.n, args.k, d.sms));
  return choice;
}

int split_k_for_waves(std::string_view config, int m, int n, int k, int sms) {
  const NamedConfig& c = find_config(config);
  const long long tiles = static_cast<long long>((m + c.block_m - 1) / c.block_m) * ((n + c.block_n - 1) / c.block_n);
  if (2 * tiles > sms) return 1;
  const long long wanted = (2LL * sms + tiles - 1) / tiles;
  return static_cast<int>(std::max(1LL, std::min({wanted, static_cast<long long>(kMaxSlices),
                                                  static_cast<long long>(k / kMinWaveSliceK)})));
}

int split_k_slices(const TileChoice& choice, int k) { return std::max(1, std::min(choice.slices, k / kMinSliceK)); }

void gemm_tiles(const TileChoice& choice, const GemmArgs& args, const LaunchContext& ctx) {
  const NamedConfig& config = find_config(choice.config);
  if (choice.group < 0 || choice.slices < 1)
    throw UsageError("a tile choice needs group >= 0 and slices >= 1");
  validate(args);
  config.launch(args, ctx, choice.group, split_k_slices(choice, args.k));
}

namespace detail {
namespace {

// explain: the table's choice for dense matrices of this shape on the GPU at hand, or on the
// device the table was swept on when there is none.
std::string autotuned_plan(const Shape& s, DType /*float*/) {
  const int m = static_cast<int>(s.dims[0]);
  const int n = static_cast<int>(s.dims[1]);
  const int k = static_cast<int>(s.dims[2]);
  int count = 0;
  const TuningEntry& swept = tuning_table().front();
  DeviceKey d{swept.cc_major, swept.cc_minor, swept.sms};
  std::string where = "the swept device";
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    d = current_device_key();
    where = "this GPU";
  } else {
    (void)cudaGetLastError();  // no device: not an error for a description
  }
  const ShapeClass shape = classify(m, n, d.sms, n % 4 == 0);  // B dense: 16-byte rows when n % 4 == 0
  TileChoice c = choose_tiles(shape, d.cc_major, d.cc_minor, d.sms);
  c.slices = std::max(c.slices, split_k_for_waves(c.config, m, n, k, d.sms));
  return "tile configuration " + std::string(c.config) + ", raster group " + std::to_string(c.group) + ", " +
         std::to_string(split_k_slices(c, k)) + " K slice(s): shape class " + std::string(shape_class_name(shape)) +
         " on " + where + " (compute capability " + std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor) +
         ", " + std::to_string(d.sms) + " SMs)";
}

}  // namespace

GemmVariant autotuned_variant() {
  return {{.family = "matmul",
           .name = "autotuned",
           .description = "11's kernel with tiles, raster group and split-K chosen per shape",
           .technique = "autotuning: a swept table of configurations by shape class; split-K "
                        "when C has fewer tiles than SMs",
           .smem = SmemKind::dynamic_alloc,
           .why_no_model = "its tile configuration is chosen by shape (see 'launches'); each "
                           "configuration's measured counters are in docs/perf/sgemm.md",
           .launch_plan = autotuned_plan},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            gemm_tiles(choose_tiles(g), g, ctx);
          }};
}

}  // namespace detail
}  // namespace smemlab::matmul
