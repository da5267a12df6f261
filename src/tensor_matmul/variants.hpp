#pragma once
#include <cstddef>
#include <string_view>

#include "core/gemm_operands.hpp"
#include "smemlab/dtype.hpp"
#include "smemlab/tensor_matmul.hpp"

// The tensor-core steps in teaching order, the reference first: each line names the function
// that builds a variant's record in its own file (src/tensor_matmul/NN_*.cu). This list is
// the family's table; a new variant is its file and one line here.
#define SMEMLAB_TENSOR_MATMUL_STEPS(STEP)                                                     \
  STEP(cublas_variant)     /* 00 cuBLAS GemmEx, same input and compute types: the reference */ \
  STEP(wmma_variant)       /* 01 the WMMA API, fragments loaded from padded shared tiles   */ \
  STEP(mma_padded_variant) /* 02 mma.sync, fragments by ldmatrix.x4 from padded tiles      */ \
  STEP(mma_swizzled_variant) /* 03 the same from XOR-swizzled tiles: no padding            */ \
  STEP(pipelined_variant)  /* 04 a 3-stage cp.async pipeline, fragments double-buffered    */ \
  STEP(warp_tile_variant)  /* 05 64 x 64 warp tiles, 128 x 256 blocks, rasterised          */ \
  STEP(autotuned_variant)  /* 06 tiles chosen per shape; unaligned operands repacked       */ \
  STEP(tma_wgmma_variant)  /* 07 Hopper: TMA into swizzled stages, wgmma, one warpgroup      */ \
  STEP(warp_specialized_variant) /* 08 a TMA producer, two wgmma consumers, setmaxnreg     */ \
  STEP(persistent_variant) /* 09 one block per SM walks the tiles: copies overlap stores     */ \
  STEP(tma_store_variant)  /* 10 the epilogue through swizzled staging buffers, TMA stores  */ \
  STEP(clusters_variant)   /* 11 clusters of two blocks share B's tile by TMA multicast     */ \
  STEP(split_k_variant)    /* 12 K divided into ranges where the tiles do not fill the SMs */ \
  STEP(skinny_variant)     /* 13 16-row or 16-column tiles; ranges of K summed in a cluster */ \
  STEP(swapped_variant)    /* 14 tf32: tiles of C's transpose, B read as stored, no transpose */ \
  STEP(small_k_variant)    /* 15 a short K on the CUDA cores: bound by writing C           */ \
  STEP(auto_variant)       /* 16 the default call: a model picks kernel, tile and split    */ \
  STEP(cluster_split_k_variant) /* 17 12's ranges of K added in a cluster, on chip         */ \
  STEP(stream_k_variant)   /* 18 the last wave's tiles' K-steps dealt out to every block     */ \
  STEP(dot_variant)        /* 19 few outputs: K split across a block's threads, CUDA cores  */

namespace smemlab::tensor_matmul::detail {

#define SMEMLAB_DECLARE_STEP(make) TensorVariant make();
SMEMLAB_TENSOR_MATMUL_STEPS(SMEMLAB_DECLARE_STEP)
#undef SMEMLAB_DECLARE_STEP

// The clusters step's paired kernel whatever the shape (the step itself pairs only large
// outputs): the tests run it on every shape.
void launch_cluster_pairs(const GemmArgs& args, const LaunchContext& ctx);

// The chooser's kernels (tuning.hpp's kernel_shapes()): step 06's mma.sync tiles by name
// ("mma128x256", "mma128x128", "mma64x64": unaligned operands copied first; "inplace128x128",
// "inplace64x64": read where they lie), and step 12's Hopper tiles ("wgmma128x256",
// "wgmma128x128", "wgmma64x128", "wgmma64x64") with K in up to `splits` ranges, step 13's thin tiles
// ("skinny16x128", "skinny128x16") with K in thin_tile_ranges ranges, and step 14's tf32 tiles
// of C's transpose ("swapped256x128", "swapped128x128", "swapped128x64", named by C's tile)
// with K in up to `splits` ranges; and step 15's CUDA-core tiles ("smallk32x256").
void launch_mma_kernel(std::string_view kernel, const GemmArgs& args, const LaunchContext& ctx);
void launch_wgmma_kernel(std::string_view kernel, int splits, const GemmArgs& args, const LaunchContext& ctx);
void launch_skinny_kernel(std::string_view kernel, const GemmArgs& args, const LaunchContext& ctx);
void launch_swapped_kernel(std::string_view kernel, int splits, const GemmArgs& args, const LaunchContext& ctx);
void launch_small_k_kernel(const GemmArgs& args, const LaunchContext& ctx);
// Step 19's dot products (kCudaCoreDot), planned by plan_dot for the current device.
void launch_dot_kernel(const GemmArgs& args, const LaunchContext& ctx);
// Step 18's stream-K tiles ("streamk128x256"), planned for `sms` SMs (0: the device's; the tests
// take fewer, so that small shapes share tiles between blocks), and the scratch they take at a
// shape on `sms` SMs.
void launch_stream_k_kernel(std::string_view kernel, const GemmArgs& args, const LaunchContext& ctx, int sms = 0);
[[nodiscard]] std::size_t stream_k_workspace_bytes(std::string_view kernel, int m, int n, int k, DType input, int sms);

}  // namespace smemlab::tensor_matmul::detail
