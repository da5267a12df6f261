#pragma once
// Access models of the matmul steps (smemlab/access_model.hpp), shared by the variants whose
// kernels share a structure. Each was checked against the kernel's SASS and against Nsight
// Compute (docs/results/data/matmul-h200-*).
#include "smemlab/access_model.hpp"

namespace smemlab::matmul::models {

// Square T x T tiles (02, 03). The compiler reads A's row four k at a time (LDS.128, every
// lane of a half-warp on the same address) unless the tile edge is a run-time value.
AccessModel square_tile(const Shape& s, int t, bool dynamic, bool runtime_edge);
// The column-first 16 x 16 tile (04), unpadded or padded to 17.
AccessModel column_first_tile(const Shape& s, bool padded);
// 05: 64 x 64 tiles, 8 deep, 8 outputs a thread.
AccessModel thread_tile_1d(const Shape& s);
// 06: 128 x 128 tiles, 8 x 8 outputs a thread.
AccessModel thread_tile_2d(const Shape& s);
// 07 and 08: A stored transposed, fragments read 16 bytes at a time; 08 pads A's rows.
AccessModel vectorized_tile(const Shape& s, bool conflict_free);
// 09-11: warp tiles written by cp.async, `stages` buffers deep.
AccessModel warp_tiled(const Shape& s, int stages);

}  // namespace smemlab::matmul::models
