#include "tensor_matmul/models.hpp"

#include <fmt/format.h>

#include <cmath>

namespace smemlab::tensor_matmul::models {

AccessModel mma_tiles(const Shape& s, DType input, const TileShape& t) {
  const double m = static_cast<double>(s.dims[0]);
  const double n = static_cast<double>(s.dims[1]);
  const double k = static_cast<double>(s.dims[2]);
  const int elem = static_cast<int>(dtype_bytes(input));
  const int threads = 32 * (t.bm / t.wm) * (t.bn / t.wn);
  const int k_step = 128 / elem;  // elements of K per stage: 128 bytes
  const double steps = std::ceil(k / k_step);
  const int mmas_per_step = 4;  // 32 bytes of K each
  const bool tf32 = input == DType::tf32;
  // 16-byte chunks per row of each tile, padding included.
  const int a_row = t.swizzled ? 8 : 9;
  const int b_chunks = t.bn * elem / 16;
  const int b_row = t.swizzled ? b_chunks : b_chunks + (tf32 ? 2 : 1);

  AccessModel model;
  model.kernel = fmt::format("mma_gemm_kernel<MmaConfig<{}, {}, {}, {}, {}, (Layout){}, {}, 1>, {}, 1>(", t.bm, t.bn,
                             t.wm, t.wn, t.stages, t.swizzled ? 1 : 0, t.double_buffer ? 1 : 0,
                             input == DType::bf16 ? "Bf16" : input == DType::f16 ? "Half" : "Tf32");
  model.block = {threads, 1, 1};
  model.smem_bytes = static_cast<std::size_t>(t.stages) * (t.bm * a_row * 16 + k_step * b_row * 16);
  model.dynamic_smem = true;
  model.blocks = std::ceil(m / t.bm) * std::ceil(n / t.bn);
  const int mi = t.wm / 16;
  const int ni = t.wn / 8;
  // ldmatrix.x4 reads four 8-row phases of 16 bytes a lane, like a 16-byte load: lane l gives
  // row l % 16 of its tile, chunk l / 16.
  const std::string a_expr = t.swizzled ? "(tx%16)*8 + (((tx%32)/16) ^ (tx%8))" : "(tx%16)*9 + (tx%32)/16";
  model.accesses.push_back(counted_access("A fragments (ldmatrix.x4)", "ld", a_expr, model.block, 16,
                                          steps * mmas_per_step * mi));
  if (tf32) {
    // B(k = l % 4, n = l / 4), 4 bytes a lane, twice per mma (rows k and k + 4).
    const int words = b_row * 4;
    const std::string b_expr = t.swizzled
                                   ? fmt::format("(tx%4)*{} + ((((tx%32)/16)) ^ ((tx%4)*2))*4 + ((tx%32)/4)%4", words)
                                   : fmt::format("(tx%4)*{} + (tx%32)/4", words);
    model.accesses.push_back(counted_access("B fragments (4-byte reads)", "ld", b_expr, model.block, 4,
                                            steps * mmas_per_step * ni * 2));
  } else {
    const std::string b_expr = t.swizzled ? fmt::format("(tx%16)*{} + (((tx%32)/16) ^ (tx%8))", b_row)
                                          : fmt::format("(tx%16)*{} + (tx%32)/16", b_row);
    model.accesses.push_back(counted_access("B fragments (ldmatrix.x4.trans)", "ld", b_expr, model.block, 16,
                                            steps * mmas_per_step * ni / 2));
  }
  model.flops = 2 * m * n * k;
  model.global_bytes = model.blocks * steps * (t.bm + t.bn) * 128.0 + m * n * 4;
  model.traffic = fmt::format("K/{} elements of A and K/{} of B per output ({}x{} tile)", t.bn, t.bm, t.bm, t.bn);
  model.notes = "Tiles are written by cp.async (LDGSTS): not counted as shared-memory stores. "
                "ldmatrix is counted as a 16-byte load of the 32 row addresses its lanes give.";
  return model;
}

}  // namespace smemlab::tensor_matmul::models
