#pragma once
// One function per variant file; the table in api.cpp lists them in teaching order.
#include "smemlab/matmul.hpp"

namespace smemlab::matmul::detail {

GemmVariant cublas_variant();
GemmVariant naive_variant();
GemmVariant tiled_static_variant_16();
GemmVariant tiled_static_variant_32();
GemmVariant tiled_dynamic_const_variant();
GemmVariant tiled_dynamic_runtime_variant();
GemmVariant bank_conflict_variant();
GemmVariant bank_conflict_padded_variant();
GemmVariant thread_tile_1d_variant();
GemmVariant thread_tile_2d_variant();
GemmVariant vectorized_variant();
GemmVariant conflict_free_variant();
GemmVariant warp_tile_variant();
GemmVariant pipelined_variant();
GemmVariant rasterized_variant();
GemmVariant autotuned_variant();

}  // namespace smemlab::matmul::detail
