#pragma once
// The host launch of the SGEMM kernels (the parts are listed in tile_config.cuh), for one tile
// configuration and a TileChoice (matmul/tuning.hpp). Split-K divides every tile's K among
// `slices` blocks; the last-wave split runs whole tiles in full waves (one block per tile) and
// then, in a second launch, divides only the tiles of the last, partial wave, so that they
// fill the GPU too. When every block of a split launch fits on the GPU at once, the launch is
// cooperative (the driver guarantees that they are all resident), so that the epilogue may
// spread the sum of a tile's parts over its blocks. B with rows that are not 16-byte aligned
// may first be copied to aligned rows in the workspace.
#include <algorithm>
#include <cstddef>

#include "core/copy_rows.hpp"
#include "core/occupancy.hpp"
#include "core/per_device.hpp"
#include "matmul/gemm_device.cuh"
#include "matmul/gemm_kernels.cuh"
#include "matmul/tuning.hpp"
#include "matmul/workspace.hpp"
#include "smemlab/error.hpp"
#include "smemlab/launch.hpp"

namespace smemlab::matmul::detail {

// The launches of a configuration: one block per tile, or split-K (every tile divided into
// `slices`) or the last-wave split (tiles of the full waves one block each, then a launch
// dividing the tiles beyond them so that their blocks fill one more wave). Sizes the dynamic
// shared memory on first use.
template <class Cfg, bool VectorB>
struct ConfigLaunch {
  static void size_shared_memory() {
    smemlab::detail::allow_dynamic_smem(tiled_gemm_kernel<Cfg, VectorB>, Cfg::kSmemBytes);
    smemlab::detail::allow_dynamic_smem(split_gemm_kernel<Cfg, VectorB>, Cfg::kSmemBytes);
  }

  // Blocks of the split kernel resident at once on the device.
  static int slots() {
    size_shared_memory();
    return smemlab::detail::resident_blocks(reinterpret_cast<const void*>(split_gemm_kernel<Cfg, VectorB>),
                                            Cfg::kThreads, Cfg::kSmemBytes);
  }

  // The schedule of a choice (slices == 1: one block per tile).
  static SplitSchedule schedule(const GemmArgs& g, const TileChoice& c) {
    SplitSchedule s;
    s.group = c.group;
    const int tiles = static_cast<int>(grid_for(g, Cfg::kBM, Cfg::kBN));
    s.steps_per_tile = (g.k + Cfg::kBK - 1) / Cfg::kBK;
    s.whole_tiles = tiles;
    const int resident = c.split_last_wave || c.slices > 1 ? slots() : 0;
    if (c.split_last_wave) {
      const int last = tiles % resident;  // tiles of the last, partial wave
      s.whole_tiles = tiles - last;
      s.slices = last > 0 ? std::max(1, resident / last) : 1;
    } else if (c.slices > 1) {
      s.whole_tiles = 0;
      s.slices = c.slices;
    }
    s.slices = std::min(s.slices, s.steps_per_tile);  // every block at least one K-step
    if (s.slices == 1) s.whole_tiles = tiles;
    const unsigned long long split = static_cast<unsigned long long>(tiles - s.whole_tiles) * s.slices;
    smemlab::detail::grid_1d(split, "gemm: the split has more blocks than a grid holds");
    s.spread_sum = s.whole_tiles == 0 && s.slices > 1 && split <= static_cast<unsigned long long>(resident) &&
                   smemlab::detail::cooperative_launch_supported();
    return s;
  }

  // Blocks of the split launch.
  static unsigned split_blocks(const GemmArgs& g, const SplitSchedule& s) {
    return (grid_for(g, Cfg::kBM, Cfg::kBN) - s.whole_tiles) * s.slices;
  }

  static WorkspaceLayout layout(const GemmArgs& g, const SplitSchedule& s) {
    if (s.slices == 1) return {};
    const std::size_t divided = grid_for(g, Cfg::kBM, Cfg::kBN) - s.whole_tiles;
    return WorkspaceLayout::of(divided, divided * s.slices * Cfg::kBM * Cfg::kBN);
  }

  static void run(const GemmArgs& g, const LaunchContext& ctx, const TileChoice& c) {
    size_shared_memory();
    SplitSchedule s = schedule(g, c);
    // The workspace is checked, or allocated, before anything is queued: a call refused for
    // too small a workspace leaves C as it was.
    const WorkspaceLayout scratch = s.slices == 1 ? WorkspaceLayout{} : layout(g, s);
    const WorkspaceScope workspace(g, scratch, ctx.stream);
    if (s.whole_tiles > 0) {
      tiled_gemm_kernel<Cfg, VectorB><<<s.whole_tiles, Cfg::kThreads, Cfg::kSmemBytes, ctx.stream>>>(g, c.group);
      SMEMLAB_LAUNCH_CHECK();
    }
    if (s.slices == 1) return;
    s.counters = workspace.counters();
    s.partials = workspace.partials();
    // The workspace is scratch, whatever it holds on entry: the tiles' counters start at zero in
    // every call, set on the stream (a memset node in a captured graph).
    SMEMLAB_CUDA_CHECK(cudaMemsetAsync(s.counters, 0, scratch.counter_bytes, ctx.stream));
    cudaLaunchAttribute cooperative{};
    cooperative.id = cudaLaunchAttributeCooperative;
    cooperative.val.cooperative = s.spread_sum ? 1 : 0;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(split_blocks(g, s));
    config.blockDim = dim3(Cfg::kThreads);
    config.dynamicSmemBytes = Cfg::kSmemBytes;
    config.stream = ctx.stream;
    config.attrs = &cooperative;
    config.numAttrs = 1;
    SMEMLAB_CUDA_CHECK(cudaLaunchKernelEx(&config, split_gemm_kernel<Cfg, VectorB>, g, s));
    SMEMLAB_LAUNCH_CHECK();
  }
};

// B copied to rows that start on 128-byte boundaries, in the workspace after the split's scratch.
struct AlignedCopyOfB {
  std::size_t offset = 0;  // bytes into the workspace
  int ld = 0;
  std::size_t end = 0;  // bytes of workspace in all
};

inline AlignedCopyOfB aligned_copy_of_b(const GemmArgs& g, std::size_t split_bytes) {
  AlignedCopyOfB copy;
  copy.offset = (split_bytes + 255) / 256 * 256;
  copy.ld = smemlab::detail::line_aligned_ld(g.n, sizeof(float));
  copy.end = copy.offset + sizeof(float) * static_cast<std::size_t>(copy.ld) * g.k;
  return copy;
}

template <class Cfg>
void launch_config(const GemmArgs& g, const LaunchContext& ctx, const TileChoice& choice) {
  if (rows_are_16b_aligned(g.b, g.ldb)) {
    ConfigLaunch<Cfg, true>::run(g, ctx, choice);
    return;
  }
  if (!choice.align_b) {
    ConfigLaunch<Cfg, false>::run(g, ctx, choice);
    return;
  }
  using L = ConfigLaunch<Cfg, true>;
  const WorkspaceLayout split = L::layout(g, L::schedule(g, choice));
  const AlignedCopyOfB copy = aligned_copy_of_b(g, split.bytes);
  const WorkspaceScope workspace(g, {split.counter_bytes, copy.end}, ctx.stream);
  GemmArgs aligned = g;
  aligned.b = reinterpret_cast<const float*>(static_cast<char*>(workspace.base()) + copy.offset);
  aligned.ldb = copy.ld;
  aligned.workspace = workspace.base();
  aligned.workspace_size = split.bytes;
  smemlab::detail::copy_rows(g.b, g.ldb, const_cast<float*>(aligned.b), copy.ld, g.k, g.n, sizeof(float), ctx.stream);
  L::run(aligned, ctx, choice);
}

template <class Cfg>
std::size_t config_workspace_bytes(const GemmArgs& g, const TileChoice& choice) {
  const bool aligned = rows_are_16b_aligned(g.b, g.ldb);
  if (aligned || choice.align_b) {
    using L = ConfigLaunch<Cfg, true>;
    const std::size_t split = L::layout(g, L::schedule(g, choice)).bytes;
    return aligned ? split : aligned_copy_of_b(g, split).end;
  }
  using L = ConfigLaunch<Cfg, false>;
  return L::layout(g, L::schedule(g, choice)).bytes;
}

}  // namespace smemlab::matmul::detail
