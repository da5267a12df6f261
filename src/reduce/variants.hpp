#pragma once
// One function per variant file; the table in api.cpp lists them in teaching order.
#include "smemlab/reduce.hpp"

namespace smemlab::reduce::detail {

ReduceVariant cub_variant();
ReduceVariant cpu_float_variant();
ReduceVariant cpu_reference_variant();
ReduceVariant global_memory_variant();
ReduceVariant shared_static_variant();
ReduceVariant shared_dynamic_variant();
ReduceVariant interleaved_divergent_variant();
ReduceVariant interleaved_strided_variant();
ReduceVariant sequential_variant();
ReduceVariant first_add_variant();
ReduceVariant warp_shuffle_variant();
ReduceVariant grid_stride_variant();
ReduceVariant vectorized_variant();
ReduceVariant single_pass_variant();

}  // namespace smemlab::reduce::detail
