// 00 — cub::DeviceScan::InclusiveSum and ExclusiveSum, the reference: what a CUDA programmer
// calls instead of writing a scan (a single pass with decoupled look-back). int32 goes in as
// unsigned, so that its sums wrap as documented; the kernels are the same. Its temporary storage
// comes out of the variant's workspace.
#include <climits>
#include <cstdint>
#include <cub/device/device_scan.cuh>

#include "scan/drivers.hpp"
#include "scan/variants.hpp"

namespace smemlab::scan::detail {
namespace {

// With num_items in 32 bits when it fits, as a typical caller passes an int.
template <class W, class Count>
cudaError_t cub_scan(void* temp, std::size_t& temp_bytes, const W* in, W* out, Count n, bool exclusive,
                     cudaStream_t stream) {
  if (exclusive) return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, stream);
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, stream);
}

template <class W>
cudaError_t cub_scan(void* temp, std::size_t& temp_bytes, const W* in, W* out, std::size_t n, bool exclusive,
                     cudaStream_t stream) {
  if (n <= static_cast<std::size_t>(INT_MAX))
    return cub_scan(temp, temp_bytes, in, out, static_cast<int>(n), exclusive, stream);
  return cub_scan(temp, temp_bytes, in, out, static_cast<std::int64_t>(n), exclusive, stream);
}

template <class W>
struct Cub {
  static std::size_t workspace(std::size_t n) {
    std::size_t inclusive = 0;
    std::size_t exclusive = 0;
    SMEMLAB_CUDA_CHECK(cub_scan<W>(nullptr, inclusive, nullptr, nullptr, n, false, nullptr));
    SMEMLAB_CUDA_CHECK(cub_scan<W>(nullptr, exclusive, nullptr, nullptr, n, true, nullptr));
    return std::max(inclusive, exclusive);
  }
  static void run(const W* in, W* out, std::size_t n, bool exclusive, void* ws, cudaStream_t stream) {
    if (n == 0) return;
    std::size_t bytes = 0;  // what this kind needs, within the workspace of either
    SMEMLAB_CUDA_CHECK(cub_scan<W>(nullptr, bytes, in, out, n, exclusive, stream));
    SMEMLAB_CUDA_CHECK(cub_scan<W>(ws, bytes, in, out, n, exclusive, stream));
  }
};

}  // namespace

ScanVariant cub_variant() {
  return {{.family = "scan",
           .name = "cub",
           .description = "cub::DeviceScan::InclusiveSum / ExclusiveSum: the reference",
           .technique = "vendor library: what a user would call instead of writing a kernel",
           .smem = SmemKind::static_alloc,
           .reference = true,
           .why_no_model = "a vendor library: its kernels are not modelled"},
          both_types<Cub>()};
}

}  // namespace smemlab::scan::detail
