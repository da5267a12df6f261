#include "tensor_matmul/tensor_map.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <tuple>

#include "core/memo.hpp"
#include "core/occupancy.hpp"

namespace smemlab::tensor_matmul::detail {
namespace {

using smemlab::detail::Memo;

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* found = nullptr;
    cudaDriverEntryPointQueryResult status{};
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &found, 12000, cudaEnableDefault, &status);
    if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || found == nullptr) {
      (void)cudaGetLastError();
      throw std::runtime_error(fmt::format("the driver has no cuTensorMapEncodeTiled ({})", cudaGetErrorString(err)));
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(found);
  }();
  return fn;
}

CUtensorMap encode(const void* base, DType type, int rows, int cols, int ld, int box_rows, int box_cols,
                   CUtensorMapSwizzle swizzle) {
  const std::size_t elem = dtype_bytes(type);
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * elem};  // bytes between rows
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encoder()(&map, type == DType::bf16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                               : type == DType::f16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                    : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                               2, const_cast<void*>(base), dims, strides, box, element_strides,
                               CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error(fmt::format("cuTensorMapEncodeTiled failed ({}) for a {}x{} matrix, ld {}, box {}x{}",
                                         static_cast<int>(r), rows, cols, ld, box_rows, box_cols));
  return map;
}

}  // namespace

CUtensorMap tensor_map(const void* base, DType type, int rows, int cols, int ld, int box_rows, int box_cols,
                       CUtensorMapSwizzle swizzle) {
  // A descriptor holds only the address, the shape and the box: the same arguments give the
  // same descriptor, so a repeated call skips the driver's encoder.
  using Key = std::tuple<std::uintptr_t, DType, int, int, int, int, int, CUtensorMapSwizzle>;
  static Memo<Key, CUtensorMap> maps;
  return maps.get(Key{reinterpret_cast<std::uintptr_t>(base), type, rows, cols, ld, box_rows, box_cols, swizzle},
                  [&] { return encode(base, type, rows, cols, ld, box_rows, box_cols, swizzle); });
}

CUtensorMap strided_tensor_map(const void* base, DType type, int rank, const std::uint64_t* dims,
                               const std::uint64_t* strides, const std::uint32_t* box) {
  CUtensorMap map{};
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  const CUresult r = encoder()(&map, type == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                               static_cast<cuuint32_t>(rank), const_cast<void*>(base), dims, strides, box,
                               element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw std::runtime_error(fmt::format("cuTensorMapEncodeTiled failed ({}) for a tensor of rank {}",
                                         static_cast<int>(r), rank));
  return map;
}

std::string why_no_wgmma() {
  int device = 0;
  int major = 0;
  int minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return "needs a GPU of compute capability 9.0 (wgmma, TMA): no CUDA device";
  }
  if (major != 9 || minor != 0)
    return fmt::format("needs compute capability 9.0 (wgmma and TMA, built for sm_90a); this GPU is {}.{}", major, minor);
  return {};
}

int hopper_plan_sms() { return why_no_wgmma().empty() ? smemlab::detail::sm_count() : 132; }

}  // namespace smemlab::tensor_matmul::detail
