#pragma once
// One function per variant file; the table in api.cpp lists them in teaching order.
#include "smemlab/transpose.hpp"

namespace smemlab::transpose::detail {

TransposeVariant cublas_variant();
TransposeVariant copy_variant();
TransposeVariant naive_row_variant();
TransposeVariant naive_col_variant();
TransposeVariant smem_tile_variant();
TransposeVariant padded_variant();
TransposeVariant swizzled_variant();
TransposeVariant tuned_variant();

// The two entry points of a variant written as a kernel template over the element type.
template <template <class> class Launcher>
TransposeOps both_types(bool copies = false) {
  return {&Launcher<float>::launch, &Launcher<double>::launch, copies};
}

}  // namespace smemlab::transpose::detail
