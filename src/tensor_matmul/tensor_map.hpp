#pragma once
// TMA tensor maps: the descriptor the copy engine reads to move a box of a matrix between
// global and shared memory, built on the host. The driver's encoder is looked up at run
// time through the runtime API, so the library needs no link to the driver and loads (and its
// CPU tests run) on machines without one.
#include <cuda.h>

#include <cstdint>
#include <string>

#include "smemlab/dtype.hpp"

namespace smemlab::tensor_matmul::detail {

// A row-major matrix of rows x cols elements of `type` (bf16, half, or float, also for tf32),
// rows ld elements apart, moved in boxes of box_rows x box_cols. In shared memory a box is dense,
// by default with the 128-byte swizzle (16-byte chunk c of row r lands at chunk c ^ (r % 8); a
// box row must then be 128 bytes). Loads read elements past the matrix's edge as zero; stores
// leave them unwritten. The base must be 16-byte aligned and a row's bytes a multiple of 16.
// Throws std::runtime_error when the driver refuses.
[[nodiscard]] CUtensorMap tensor_map(const void* base, DType type, int rows, int cols, int ld, int box_rows,
                                     int box_cols, CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B);

// A strided tensor of up to 5 dimensions, dims[0] innermost and contiguous, strides[i] the bytes
// between consecutive indices of dims[i + 1] (multiples of 16), moved in boxes of box[i]
// elements, with the 128-byte swizzle (box[0] elements must then be 128 bytes). Loads read
// elements past any dimension's end as zero. Not cached: the caller keeps what it reuses.
// Throws std::runtime_error when the driver refuses.
[[nodiscard]] CUtensorMap strided_tensor_map(const void* base, DType type, int rank, const std::uint64_t* dims,
                                             const std::uint64_t* strides, const std::uint32_t* box);

// Why the wgmma steps cannot run on the current device (they are built for compute
// capability 9.0 only, sm_90a); empty when they can.
[[nodiscard]] std::string why_no_wgmma();

// The SMs a Hopper step plans its launch for: the current device's, or, where the wgmma steps
// cannot run (`explain` on a machine without such a GPU), the 132 of the H100 the chooser's
// rates were measured on.
[[nodiscard]] int hopper_plan_sms();

}  // namespace smemlab::tensor_matmul::detail
