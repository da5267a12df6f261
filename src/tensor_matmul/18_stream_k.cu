// 18 — stream-K on the Hopper kernel. Changed from 10: where C's 128 x 256 tiles fill some whole
// waves of one block an SM and then part of one more (4096^3: 512 tiles, 3.88 waves on 132 SMs;
// 8192^3: 15.52), the tiles of the last, partial wave are not taken whole: their K-steps are
// dealt out evenly to the blocks (StreamKTiles), so that a tile may be begun by one block and
// ended by the next. The block that ends a shared tile adds the others' sums, which they leave
// in the workspace with a flag each, in block order, and stores it; the whole waves' tiles are
// taken as in 10. Should buy: the idle part of the last wave, ceil(waves) - waves of a tile's
// time (0.12 of one at 4096^3, 0.48 at 8192^3), less each shared tile's sums written and read
// once through the L2 (128 KiB a block, about 1 us each way) and the launch that zeroes the
// flags: a gain only where a tile's K-loop is long.
#include <algorithm>
#include <string>

#include "tensor_matmul/models.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul {

StreamKPlan stream_k_plan(long long tiles, int steps, int sms) {
  const long long full_waves = tiles / sms;
  const long long rest = tiles % sms;
  const int blocks = static_cast<int>(std::min<long long>(tiles, sms));
  if (full_waves == 0 || rest == 0) return {blocks, 0, 0};
  const long long sharers = std::min(rest * steps / kMinStepsPerRange, rest * kMostStreamPieces);
  return {blocks, static_cast<int>(rest), static_cast<int>(std::clamp<long long>(sharers, 1, sms))};
}

namespace {
std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }
constexpr int kMostConsumers = 4;  // flags a block: one per consumer warpgroup
}  // namespace

std::size_t stream_k_slots_bytes(int blocks, int bm, int bn) {
  return round_up(static_cast<std::size_t>(blocks) * bm * bn * sizeof(float), 256);
}

std::size_t stream_k_bytes(int blocks, int bm, int bn) {
  const std::size_t flags = static_cast<std::size_t>(blocks) * kMostConsumers * sizeof(int);
  return stream_k_slots_bytes(blocks, bm, bn) + round_up(flags, 256);
}

namespace detail {
namespace {

using StreamConfig = WgmmaConfig<2, 1, 256, 4, true, StreamKTiles, TmaStore>;  // 10's tile and epilogue
static_assert(StreamConfig::kConsumers <= kMostConsumers);
constexpr int kStreamRasterGroup = 8;

long long tiles_of(int m, int n) {
  return static_cast<long long>((m + StreamConfig::kBM - 1) / StreamConfig::kBM) *
         ((n + StreamConfig::kBN - 1) / StreamConfig::kBN);
}

std::string launch_plan(const Shape& s, DType type) {
  const GemmShape g = gemm_shape(s);
  const int sms = hopper_plan_sms();
  const long long tiles = tiles_of(g.m, g.n);
  const int steps = k_ranges(g.k, k_step(type), 1).steps_per_range;
  const StreamKPlan plan = stream_k_plan(tiles, steps, sms);
  if (plan.stream_tiles == 0)
    return std::to_string(tiles) + " tiles of 128x256 on " + std::to_string(sms) +
           " SMs: no whole wave followed by a partial one, each tile taken whole (10's kernel)";
  return std::to_string(tiles) + " tiles of 128x256 (" + std::to_string(steps) + " K-steps each) on " +
         std::to_string(sms) + " SMs: " + std::to_string(tiles - plan.stream_tiles) +
         " in whole waves, taken whole; the last " + std::to_string(plan.stream_tiles) + " tiles' steps dealt out to " +
         std::to_string(plan.stream_blocks) + " blocks, " +
         std::to_string(static_cast<long long>(plan.stream_tiles) * steps / plan.stream_blocks) + " or one more each";
}

}  // namespace

std::size_t stream_k_workspace_bytes(std::string_view kernel, int m, int n, int k, DType input, int sms) {
  if (kernel != "streamk128x256") throw std::logic_error("unknown stream-K kernel configuration");
  const StreamKPlan plan = stream_k_plan(tiles_of(m, n), k_ranges(k, k_step(input), 1).steps_per_range, sms);
  return plan.stream_tiles > 0 ? stream_k_bytes(plan.stream_blocks, StreamConfig::kBM, StreamConfig::kBN) : 0;
}

void launch_stream_k_kernel(std::string_view kernel, const GemmArgs& args, const LaunchContext& ctx, int sms) {
  if (kernel != "streamk128x256") throw std::logic_error("unknown stream-K kernel configuration");
  launch_wgmma<StreamConfig, true>(args, ctx, kStreamRasterGroup, 1, sms);
}

TensorVariant stream_k_variant() {
  return {{.family = "tensor-matmul",
           .name = "stream_k",
           .description = "10 with the K-steps of the last, partial wave's tiles dealt out evenly to the blocks; "
                          "the block that ends a shared tile adds the others' sums in a fixed order",
           .technique = "stream-K: every SM busy to the end, whatever the number of tiles",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = wgmma_model<StreamConfig>,
           .launch_plan = launch_plan,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_wgmma<StreamConfig>(g, ctx, kStreamRasterGroup);
          }};
}

}  // namespace detail
}  // namespace smemlab::tensor_matmul
