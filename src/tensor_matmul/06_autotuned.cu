// 06 — the autotuned choice. The tile configuration comes from the shape's waves (below), and
// operands whose rows are not 16-byte aligned (K or N not a multiple of 8 bf16/half or 4
// tf32, or an unaligned pointer) are first copied into aligned buffers, so that every shape
// runs the cp.async kernel. Changed from 05: small products get small tiles (enough blocks to
// fill the SMs), and 4095^3 or 4097^3 pay one memory-bound copy, ~35 us at 4097^3, instead
// of element-by-element copies inside the kernel. Should buy: 05's throughput on unaligned
// shapes (cuBLAS falls to a fifth of its aligned speed there) and 2x or more on small ones.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <stdexcept>

#include "core/occupancy.hpp"
#include "tensor_matmul/mma_gemm.cuh"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul {
namespace detail {
namespace {

using LargeConfig = MmaConfig<128, 256, 64, 64, 4, Layout::swizzled, false>;  // 05's
using MediumConfig = MmaConfig<128, 128, 64, 32, 3, Layout::swizzled, true>;  // 04's
using SmallConfig = MmaConfig<64, 64, 32, 32, 4, Layout::swizzled, true>;
constexpr int kRasterGroup = 8;

// A configuration as the choice sees it. Blocks per SM: what its shared memory (192, 96 and
// 64 KiB of 227) and registers allow. Relative rate: the throughput of a GPU full of its
// blocks against the large tiles', measured at 8192^3 in bf16 for the large and medium tiles
// (steps 05 and 04: 0.52 and 0.41 of cuBLAS); the small tiles' is an estimate, since no
// shape that fills the GPU chooses them (docs/perf/tensor-matmul.md).
struct TileOption {
  std::string_view name;
  int bm, bn;
  int blocks_per_sm;
  double relative_rate;
  void (*launch)(const GemmArgs&, cudaStream_t, int);
  models::TileShape shape;
};

const std::array<TileOption, 3>& tile_options() {
  static const std::array<TileOption, 3> options{{
      {"128x256", 128, 256, 1, 1.00, launch_mma<LargeConfig>, model_config<LargeConfig>()},
      {"128x128", 128, 128, 1, 0.79, launch_mma<MediumConfig>, model_config<MediumConfig>()},
      {"64x64", 64, 64, 2, 0.60, launch_mma<SmallConfig>, model_config<SmallConfig>()},
  }};
  return options;
}

// The time of a configuration, up to a constant: waves of blocks, each wave as long as one
// SM's share of its blocks' work at the configuration's rate. A partial last wave costs a
// whole one.
double modelled_time(const TileOption& o, int m, int n, int sms) {
  const double tiles = std::ceil(static_cast<double>(m) / o.bm) * std::ceil(static_cast<double>(n) / o.bn);
  const double waves = std::ceil(tiles / (static_cast<double>(sms) * o.blocks_per_sm));
  return waves * o.blocks_per_sm * o.bm * o.bn / o.relative_rate;
}

const TileOption& option_named(std::string_view name) {
  for (const auto& o : tile_options())
    if (o.name == name) return o;
  throw std::logic_error("unknown tensor-core tile configuration");
}


// explain's SMs: the GPU at hand's, else those of the H200 the rates were measured on.
constexpr int kMeasuredSms = 132;
struct PlanDevice {
  int sms;
  const char* where;
};
PlanDevice plan_device() {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) return {smemlab::detail::sm_count(), "this GPU"};
  (void)cudaGetLastError();  // no device: not an error for a description
  return {kMeasuredSms, "the measured H200"};
}

void launch_autotuned(const GemmArgs& args, const LaunchContext& ctx) {
  const TileChoice choice = choose_tiles(args.m, args.n, args.k, smemlab::detail::sm_count());
  const AlignedOperands aligned(args, ctx);
  option_named(choice.config).launch(aligned.args(), ctx.stream, choice.group);
}

std::string launch_plan(const Shape& s, DType type) {
  const auto [m, n, k] = gemm_shape(s);
  const auto [sms, where] = plan_device();
  const TileChoice choice = choose_tiles(m, n, k, sms);
  const TileOption& o = option_named(choice.config);
  const long long tiles = static_cast<long long>((m + o.bm - 1) / o.bm) * ((n + o.bn - 1) / o.bn);
  const auto chunk = static_cast<int>(16 / dtype_bytes(type));
  std::array<char, 32> waves{};
  std::snprintf(waves.data(), waves.size(), "%.2f", static_cast<double>(tiles) / (static_cast<double>(sms) * o.blocks_per_sm));
  return std::to_string(tiles) + " tiles of " + std::string(choice.config) + " (" + waves.data() + " waves of " +
         std::to_string(o.blocks_per_sm * sms) + " blocks on the " + std::to_string(sms) + " SMs of " + where + "), raster group " +
         std::to_string(choice.group) +
         (k % chunk == 0 && n % chunk == 0 ? "" : "; rows not 16-byte aligned: A and/or B repacked first");
}

}  // namespace

void launch_mma_kernel(std::string_view kernel, const GemmArgs& args, const LaunchContext& ctx) {
  constexpr std::string_view kInPlace = "inplace";
  if (kernel.starts_with(kInPlace)) {  // the operands as they are stored, however aligned
    option_named(kernel.substr(kInPlace.size())).launch(args, ctx.stream, kRasterGroup);
    return;
  }
  const AlignedOperands aligned(args, ctx);
  const std::string_view config = kernel.substr(kernel.starts_with("mma") ? 3 : 0);
  option_named(config).launch(aligned.args(), ctx.stream, kRasterGroup);
}

TensorVariant autotuned_variant() {
  return {{.family = "tensor-matmul",
           .name = "autotuned",
           .description = "tiles chosen from the shape's waves; unaligned operands repacked into aligned buffers",
           .technique = "a model of waves picks the tile; one copy makes every shape take the 16-byte path",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model =
               [](const Shape& s, DType type) {
                 const GemmShape g = gemm_shape(s);
                 const TileChoice c = choose_tiles(g.m, g.n, g.k, plan_device().sms);
                 return models::mma_tiles(s, type, option_named(c.config).shape);
               },
           .launch_plan = launch_plan},
          launch_autotuned};
}

}  // namespace detail

TileChoice choose_tiles(int m, int n, int /*k*/, int sms) {
  const auto& options = detail::tile_options();
  const auto best = std::min_element(options.begin(), options.end(), [&](const auto& x, const auto& y) {
    return detail::modelled_time(x, m, n, sms) < detail::modelled_time(y, m, n, sms);
  });
  return {best->name, detail::kRasterGroup};
}


}  // namespace smemlab::tensor_matmul
