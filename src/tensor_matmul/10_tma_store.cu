// 10 — the epilogue through shared memory and TMA stores. Changed from 09: a consumer no longer
// stores its 64 x 256 accumulators to C itself, 8 bytes a thread with rows 8 apart; it writes
// them, 32 columns at a time, into one of two 8 KiB staging buffers in shared memory (boxes of
// 32-byte rows: conflict-free) and one thread hands the buffer to the copy engine, which writes
// C while the consumer fills the other buffer and then starts its next tile. Should buy: the
// consumers' share of the epilogue falls from global stores to shared-memory writes; the
// epilogue was about 2% of a tile at 4096^3, so +1-2%.
#include "tensor_matmul/models.hpp"
#include "tensor_matmul/variants.hpp"
#include "tensor_matmul/wgmma_gemm.cuh"

namespace smemlab::tensor_matmul::detail {

using TmaStoreConfig = WgmmaConfig<2, 1, 256, 4, true, PersistentTiles, TmaStore>;
constexpr int kTmaStoreRasterGroup = 8;

TensorVariant tma_store_variant() {
  return {{.family = "tensor-matmul",
           .name = "tma_store",
           .description = "09 with the epilogue through shared-memory staging buffers and TMA stores",
           .technique = "TMA stores: the copy engine writes C from shared memory while the consumers move on",
           .smem = SmemKind::dynamic_alloc,
           .dtypes = kTensorInputs,
           .model = wgmma_model<TmaStoreConfig>,
           .unavailable = why_no_wgmma},
          [](const GemmArgs& g, const LaunchContext& ctx) {
            launch_wgmma<TmaStoreConfig>(g, ctx, kTmaStoreRasterGroup);
          }};
}

}  // namespace smemlab::tensor_matmul::detail
