// 13 — products with few rows or few columns: a language model generating the next token of 1
// to 16 sequences multiplies that many rows by each weight matrix (m <= 16); or a matrix times
// a few vectors (n <= 16). Such a product reads its large operand once and does a few
// multiply-adds per element: it is bound by DRAM, not by the tensor cores.
// Changed from 12: the tile is one mma.sync tile thick on the small side (16 x 128, or 128 x 16)
// instead of 64 to 256, so no block reads rows or columns that C does not have; K is divided
// into ranges as in 12, but the blocks of one tile's ranges form a thread-block cluster and add
// their partial sums through distributed shared memory (each block's shared memory, which the
// other blocks of its cluster can read), in range order, before storing C once. No partial
// sums cross DRAM and no second kernel is launched: at 1 x 4096 x 4096 (32 MiB of B, about
// 11 us at DRAM speed) a second launch would add a fifth.
// Should buy: the large operand read at the speed of the best reduction, at least cuBLAS's
// speed on these shapes (the default call over steps 06-12 there: 0.92 of cuBLAS at
// 16 x 8192 x 8192, 0.74 at 1 x 4096 x 4096).
#include <cooperative_groups.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/occupancy.hpp"
#include "tensor_matmul/mma_gemm.cuh"
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/partial_sums.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tensor_map.hpp"
#include "tensor_matmul/tuning.hpp"
#include "tensor_matmul/variants.hpp"

namespace smemlab::tensor_matmul {
namespace detail {
namespace {

namespace cg = cooperative_groups;

// Three blocks fit an SM, so that clusters of up to 8 find room in a processing cluster (one
// block an SM with a deeper ring ran up to 1.3x slower wherever a grid of clusters did not fit
// at once: docs/perf/tensor-matmul.md).
// 16 rows by 128 columns: one mma tile down, four warps of 32 columns across. B, the large
// operand, streams through 4 stages of 16 KiB (72 KiB a block).
using WideConfig = MmaConfig<16, 128, 16, 32, 4, Layout::swizzled, true, 3>;
// 128 rows by 16 columns: four warps of 32 rows down; A streams through 3 stages of 18 KiB.
// B's rows of 16 columns are too short for the swizzle (it spans 128 bytes): padded instead.
using TallConfig = MmaConfig<128, 16, 32, 16, 3, Layout::padded, true, 3>;

// The K-steps of range blockIdx.y; with more than one range, the cluster's blocks (one per
// range of the same tile) then add their sums: each leaves its accumulators in its shared
// memory, and each adds a share of the tile's elements over every block's copy, range 0 first.
template <class Cfg, class E>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    skinny_gemm_kernel(GemmArgs g, int steps_per_range, bool c_pairs) {
  extern __shared__ __align__(128) char smem[];
  constexpr int kBK = kKStepBytes / kElemBytes<E>;
  constexpr int kSlots = Cfg::kMI * Cfg::kNI;  // a thread's 16 x 8 tiles of C
  // Tiles in column-major order: the tiles that read the same columns of B run together, so
  // that B crosses from DRAM once where C has more than one row of tiles.
  const TileOrigin t =
      smemlab::detail::rastered_tile(g.m, g.n, Cfg::kBM, Cfg::kBN, (g.m + Cfg::kBM - 1) / Cfg::kBM);
  const int ranges = static_cast<int>(gridDim.y);
  const int range = static_cast<int>(blockIdx.y);  // its rank in the cluster
  const int first = range * steps_per_range;
  WarpTile<Cfg> w;
  multiply_k_steps<Cfg, E, 16>(g, t, first, min(steps_per_range, (g.k + kBK - 1) / kBK - first), smem, w);
  if (ranges == 1) {
    store_warp_tile(g, t, c_pairs, w);
    return;
  }
  // Slot s of thread x at float4 [s * threads + x]: a warp writes 512 consecutive bytes.
  const int tid = static_cast<int>(threadIdx.x);
  auto* sums = reinterpret_cast<float4*>(smem);
  __syncthreads();  // every warp is done reading the stages
#pragma unroll
  for (int s = 0; s < kSlots; ++s) {
    const float(&v)[4] = w.acc[s / Cfg::kNI][s % Cfg::kNI];
    sums[s * Cfg::kThreads + tid] = make_float4(v[0], v[1], v[2], v[3]);
  }
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();  // every range's sums are in place
  for (int at = range * Cfg::kThreads + tid; at < kSlots * Cfg::kThreads; at += ranges * Cfg::kThreads) {
    float4 sum = *cluster.map_shared_rank(sums + at, 0);
    for (int r = 1; r < ranges; ++r) {
      const float4 x = *cluster.map_shared_rank(sums + at, r);
      sum = make_float4(sum.x + x.x, sum.y + x.y, sum.z + x.z, sum.w + x.w);
    }
    // The C tile of slot s of thread x, as x's warp holds it.
    const int s = at / Cfg::kThreads;
    const int x = at % Cfg::kThreads;
    const int warp = x / 32;
    const int lane = x % 32;
    const int row = t.row0 + warp / Cfg::kWarpsN * Cfg::kWM + s / Cfg::kNI * 16 + lane / 4;
    const int col = t.col0 + warp % Cfg::kWarpsN * Cfg::kWN + s % Cfg::kNI * 8 + lane % 4 * 2;
    const float v[4] = {sum.x, sum.y, sum.z, sum.w};
    store_tile(t.edge, c_pairs, [&](auto checked, auto pairs) {
      store_mma_tile<decltype(checked)::value, decltype(pairs)::value>(g, row, col, v);
    });
  }
  cluster.sync();  // the other blocks read this block's sums until here
}

template <class Cfg>
long long tiles_of(int m, int n) {
  return static_cast<long long>((m + Cfg::kBM - 1) / Cfg::kBM) * ((n + Cfg::kBN - 1) / Cfg::kBN);
}

// K in thin_tile_ranges ranges, one cluster of blocks a tile. Operands whose rows are not
// 16-byte aligned are copied to aligned rows first.
template <class Cfg>
void launch_skinny(const GemmArgs& args, const LaunchContext& ctx) {
  const AlignedOperands aligned(args, ctx);
  const GemmArgs& g = aligned.args();
  if (!operands_16b_aligned(g)) throw std::logic_error("gemm: the skinny kernel needs 16-byte-aligned rows");
  constexpr bool kWide = Cfg::kBM < Cfg::kBN;
  const KRanges split = k_ranges(
      g.k, k_step(g.input), thin_tile_ranges(kWide, g.m, g.n, g.k, g.input, smemlab::detail::sm_count()));
  const long long tiles = tiles_of<Cfg>(g.m, g.n);
  if (tiles > 0x7FFFFFFFLL) throw std::invalid_argument("gemm: C has more tiles than a grid holds");
  with_input_type(g.input, [&](auto e) {
    const auto kernel = skinny_gemm_kernel<Cfg, decltype(e)>;
    constexpr std::size_t kSmem = Cfg::template kSmemBytes<decltype(e)>;
    smemlab::detail::allow_dynamic_smem(kernel, kSmem);
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1;
    cluster.val.clusterDim.y = static_cast<unsigned>(split.count);
    cluster.val.clusterDim.z = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(split.count), 1);
    config.blockDim = dim3(Cfg::kThreads, 1, 1);
    config.dynamicSmemBytes = kSmem;
    config.stream = ctx.stream;
    config.attrs = &cluster;
    config.numAttrs = 1;
    SMEMLAB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, g, split.steps_per_range, c_pairs_aligned(g)));
  });
}

// The step's own tile: 16 rows where C has no more rows than columns, else 16 columns.
bool wide(int m, int n) { return m <= n; }

std::string launch_plan(const Shape& s, DType type) {
  const GemmShape g = gemm_shape(s);
  const int sms = hopper_plan_sms();
  const bool w = wide(g.m, g.n);
  const int ranges = k_ranges(g.k, k_step(type), thin_tile_ranges(w, g.m, g.n, g.k, type, sms)).count;
  const long long tiles = w ? tiles_of<WideConfig>(g.m, g.n) : tiles_of<TallConfig>(g.m, g.n);
  std::string out = std::to_string(tiles) + (w ? " tiles of 16x128" : " tiles of 128x16") + " for " +
                    std::to_string(sms) + " SMs";
  if (ranges == 1) return out + ": K whole";
  return out + ", K in " + std::to_string(ranges) + " ranges: clusters of " + std::to_string(ranges) +
         " blocks add their sums in distributed shared memory";
}

}  // namespace

void launch_skinny_kernel(std::string_view kernel, const GemmArgs& args, const LaunchContext& ctx) {
  if (kernel == "skinny16x128") {
    launch_skinny<WideConfig>(args, ctx);
  } else if (kernel == "skinny128x16") {
    launch_skinny<TallConfig>(args, ctx);
  } else {
    throw std::logic_error("unknown skinny kernel configuration");
  }
}

TensorVariant skinny_variant() {
  return {{.family = "tensor-matmul",
           .name = "skinny",
           .description =
               "16-row (or 16-column) tiles for products with few rows (or columns); K in ranges whose "
               "sums a cluster adds in distributed shared memory",
           .technique =
               "a tile as thin as C; split-K without a second kernel: clusters and distributed shared memory",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model =
               [](const Shape& s, DType type) {
                 const GemmShape g = gemm_shape(s);
                 return wide(g.m, g.n)
                            ? models::mma_tiles(s, type, model_config<WideConfig>(), "skinny_gemm_kernel", "")
                            : models::mma_tiles(s, type, model_config<TallConfig>(), "skinny_gemm_kernel",
                                                "");
               },
           .launch_plan = launch_plan,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            if (wide(g.m, g.n)) {
              launch_skinny<WideConfig>(g, ctx);
            } else {
              launch_skinny<TallConfig>(g, ctx);
            }
          }};
}

}  // namespace detail

int thin_tile_ranges(bool wide, int m, int n, int k, DType input, int sms) {
  using namespace detail;
  const long long tiles = wide ? tiles_of<WideConfig>(m, n) : tiles_of<TallConfig>(m, n);
  const long long slots = wide ? sms : 2LL * sms;
  if (tiles * 2 > slots) return 1;
  const int steps = k_ranges(k, k_step(input), 1).steps_per_range;
  return static_cast<int>(
      std::clamp<long long>(std::min<long long>(slots / tiles, steps / kMinStepsPerRange), 1, kMaxClusterRanges));
}

}  // namespace smemlab::tensor_matmul
