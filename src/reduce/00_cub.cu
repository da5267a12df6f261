// 00 — cub::DeviceReduce::Sum, the reference: what a CUDA programmer calls instead of writing a
// reduction. Its temporary storage comes out of the variant's workspace.
#include <cub/device/device_reduce.cuh>

#include <climits>
#include <cstdint>

#include "reduce/drivers.hpp"
#include "reduce/variants.hpp"

namespace smemlab::reduce::detail {
namespace {

// With num_items in 32 bits when it fits, as a typical caller passes an int.
template <class T>
cudaError_t cub_sum(void* temp, std::size_t& temp_bytes, const T* in, std::size_t n, T* out,
                    cudaStream_t stream) {
  if (n <= static_cast<std::size_t>(INT_MAX))
    return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<int>(n), stream);
  return cub::DeviceReduce::Sum(temp, temp_bytes, in, out, static_cast<std::int64_t>(n), stream);
}

template <class T>
std::size_t cub_workspace(std::size_t n) {
  std::size_t bytes = 0;
  SMEMLAB_CUDA_CHECK(cub_sum<T>(nullptr, bytes, nullptr, n, nullptr, nullptr));
  return bytes;
}

template <class T>
void cub_launch(const T* in, std::size_t n, T* out, void* workspace, cudaStream_t stream) {
  if (n == 0) return write_zero(out, stream);
  std::size_t bytes = cub_workspace<T>(n);
  SMEMLAB_CUDA_CHECK(cub_sum<T>(workspace, bytes, in, n, out, stream));
}

}  // namespace

ReduceVariant cub_variant() {
  return {{.family = "reduction",
           .name = "cub",
           .description = "cub::DeviceReduce::Sum: the reference",
           .technique = "vendor library: what a user would call instead of writing a kernel",
           .smem = SmemKind::static_alloc,
           .reference = true,
           .why_no_model = "a vendor library: its kernels are not modelled"},
          {.f32 = {cub_workspace<float>, cub_launch<float>, nullptr},
           .f64 = {cub_workspace<double>, cub_launch<double>, nullptr}}};
}

}  // namespace smemlab::reduce::detail
