#pragma once
// Host-side drivers shared by the scan steps: the element types' entry points from one launch
// template, launch sizes.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/occupancy.hpp"
#include "smemlab/error.hpp"
#include "smemlab/scan.hpp"

namespace smemlab::scan::detail {

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

inline unsigned grid_size(std::size_t blocks) {
  return smemlab::detail::grid_1d(blocks, "scan: n too large for one grid");
}

// Launch<W> has workspace(n) and run(in, out, n, exclusive, workspace, stream) over the word
// type W (float, or unsigned for int32: scan_device.cuh); this makes both entry points.
template <template <class> class Launch>
ScanOps both_types() {
  return {.i32 = {Launch<unsigned>::workspace,
                  [](const std::int32_t* in, std::int32_t* out, std::size_t n, Kind kind, void* ws,
                     cudaStream_t s) {
                    Launch<unsigned>::run(reinterpret_cast<const unsigned*>(in),
                                          reinterpret_cast<unsigned*>(out), n, kind == Kind::exclusive, ws,
                                          s);
                  }},
          .f32 = {Launch<float>::workspace,
                  [](const float* in, float* out, std::size_t n, Kind kind, void* ws, cudaStream_t s) {
                    Launch<float>::run(in, out, n, kind == Kind::exclusive, ws, s);
                  }}};
}

}  // namespace smemlab::scan::detail
