// 03 — naive, writing rows: a warp reads 32 elements down an input column (32 rows, strided) and
// writes them along an output row (coalesced). Changed from 02: the strided side is now the
// read. Reads can be served by whole sectors that neighbouring warps then hit in L1/L2, so this
// is expected to beat 02, which scatters partial-sector writes.
#include "smemlab/error.hpp"
#include "transpose/transpose_device.cuh"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {
namespace {

template <class T>
__global__ void __launch_bounds__(256) naive_col_kernel(Args<T> a) {
  const Tile t = tile_at(a, blockIdx.x, 32, 8);  // 32 rows x 8 columns per block
  const int r = t.row0 + static_cast<int>(threadIdx.x);
  const int c = t.col0 + static_cast<int>(threadIdx.y);
  if (r < a.rows && c < a.cols)
    a.out[static_cast<std::size_t>(c) * a.ld_out + r] = a.in[static_cast<std::size_t>(r) * a.ld_in + c];
}

template <class T>
struct NaiveCol {
  static void launch(const Args<T>& a, const LaunchContext& ctx) {
    naive_col_kernel<<<grid_of(tile_count(a, 32, 8)), dim3(32, 8), 0, ctx.stream>>>(a);
    SMEMLAB_LAUNCH_CHECK();
  }
};

}  // namespace

TransposeVariant naive_col_variant() {
  return {{.family = "transpose",
           .name = "naive_col",
           .description = "one thread per element: strided reads, coalesced writes",
           .technique = "uncoalesced loads, which neighbouring warps reuse through the caches",
           .smem = SmemKind::none,
           .why_no_model = "uses no shared memory"},
          both_types<NaiveCol>()};
}

}  // namespace smemlab::transpose::detail
