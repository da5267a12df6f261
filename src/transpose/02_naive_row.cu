// 02 — naive, reading rows: one thread per element, a warp reads 32 consecutive elements of an
// input row (coalesced) and writes them down a column of the output, 32 different rows: each
// 4-byte store touches its own 32-byte sector, so the write traffic is 8x (float) the useful
// bytes.
#include "smemlab/error.hpp"
#include "transpose/transpose_device.cuh"
#include "transpose/variants.hpp"

namespace smemlab::transpose::detail {
namespace {

template <class T>
__global__ void __launch_bounds__(256) naive_row_kernel(Args<T> a) {
  const Tile t = tile_at(a, blockIdx.x, 8, 32);  // 8 rows x 32 columns per block
  const int r = t.row0 + static_cast<int>(threadIdx.y);
  const int c = t.col0 + static_cast<int>(threadIdx.x);
  if (r < a.rows && c < a.cols)
    a.out[static_cast<std::size_t>(c) * a.ld_out + r] = a.in[static_cast<std::size_t>(r) * a.ld_in + c];
}

template <class T>
struct NaiveRow {
  static void launch(const Args<T>& a, const LaunchContext& ctx) {
    naive_row_kernel<<<grid_of(tile_count(a, 8, 32)), dim3(32, 8), 0, ctx.stream>>>(a);
    SMEMLAB_LAUNCH_CHECK();
  }
};

}  // namespace

TransposeVariant naive_row_variant() {
  return {{.family = "transpose",
           .name = "naive_row",
           .description = "one thread per element: coalesced reads, strided writes",
           .technique = "uncoalesced stores: each 4-byte write fills its own 32-byte sector",
           .smem = SmemKind::none,
           .why_no_model = "uses no shared memory"},
          both_types<NaiveRow>()};
}

}  // namespace smemlab::transpose::detail
