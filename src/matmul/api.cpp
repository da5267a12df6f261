#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "matmul/variants.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul {

void validate(const GemmArgs& g) {
  const auto fail = [](std::string message) { throw std::invalid_argument("gemm: " + message); };
  if (g.m < 1 || g.n < 1 || g.k < 1)
    fail(fmt::format("m, n and k must be at least 1 (got {}, {}, {})", g.m, g.n, g.k));
  if (g.lda < g.k) fail(fmt::format("lda ({}) must be at least k ({})", g.lda, g.k));
  if (g.ldb < g.n) fail(fmt::format("ldb ({}) must be at least n ({})", g.ldb, g.n));
  if (g.ldc < g.n) fail(fmt::format("ldc ({}) must be at least n ({})", g.ldc, g.n));
  if (g.a == nullptr || g.b == nullptr || g.c == nullptr) fail("null matrix pointer");
}

std::span<const GemmVariant> variants() {
  // The steps in teaching order, the reference first. A new variant: its file, one line here.
  static const std::array table{
      detail::cublas_variant(),                 // 00 cuBLAS SGEMM: the reference
      detail::naive_variant(),                  // 01 one thread an output, all from global memory
      detail::tiled_static_variant_16(),        // 02 shared-memory tiles, static arrays
      detail::tiled_static_variant_32(),        //    the same with 32 x 32 tiles
      detail::tiled_dynamic_const_variant(),    // 03 dynamic shared memory, tile size compiled in
      detail::tiled_dynamic_runtime_variant(),  //    tile size known only at run time
      detail::bank_conflict_variant(),          // 04 a column-first tile: bank conflicts
      detail::bank_conflict_padded_variant(),   //    the same padded to 17 words a row
      detail::thread_tile_1d_variant(),         // 05 8 outputs a thread, down a column
      detail::thread_tile_2d_variant(),         // 06 an 8 x 8 outer product a thread
      detail::vectorized_variant(),             // 07 16-byte accesses, A transposed in shared memory
      detail::conflict_free_variant(),          // 08 A's rows padded: no fragment conflicts
      detail::warp_tile_variant(),              // 09 warp tiles fed by cp.async
      detail::pipelined_variant(),              // 10 a 3-stage copy pipeline
      detail::rasterized_variant(),             // 11 blocks ordered for L2 reuse
      detail::autotuned_variant(),              // 12 tiles and split-K chosen per shape
  };
  return table;
}

const GemmVariant& find(std::string_view name) { return find_variant(variants(), name); }

void gemm(const GemmVariant& variant, const GemmArgs& args, const LaunchContext& ctx) {
  validate(args);
  variant.launch(args, ctx);
}

}  // namespace smemlab::matmul
