#pragma once
// TMA tensor maps: the descriptor the copy engine reads to move a box of a matrix between
// global and shared memory, built on the host. The driver's encoder is looked up at run
// time through the runtime API, so the library needs no link to the driver and loads (and its
// CPU tests run) on machines without one.
#include <cuda.h>

#include <string>
#include <string_view>

#include "smemlab/dtype.hpp"

namespace smemlab::tensor_matmul::detail {

// A row-major matrix of rows x cols elements of `type` (bf16, half, or tf32 stored as float),
// rows ld elements apart, read in boxes of box_rows x box_cols written to shared memory with
// the 128-byte swizzle (16-byte chunk c of row r lands at chunk c ^ (r % 8); a box row must be
// 128 bytes). Elements past the matrix's edge read as zero. The base must be 16-byte aligned
// and a row's bytes a multiple of 16. Throws std::runtime_error when the driver refuses.
[[nodiscard]] CUtensorMap swizzled_tensor_map(const void* base, DType type, int rows, int cols, int ld, int box_rows,
                                              int box_cols);

// Why the wgmma steps cannot run on the current device (they are built for compute
// capability 9.0 only, sm_90a); empty when they can.
[[nodiscard]] std::string why_no_wgmma();

// What `explain` says instead of a model for the wgmma steps.
inline constexpr std::string_view kWgmmaWhyNoModel = "the TMA writes and wgmma reads of swizzled tiles are not modelled yet";

}  // namespace smemlab::tensor_matmul::detail
