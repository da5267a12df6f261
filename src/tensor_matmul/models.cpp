#include "tensor_matmul/models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace smemlab::tensor_matmul::models {

AccessModel mma_tiles(const Shape& s, DType input, const TileShape& t, std::string_view kernel,
                      std::string_view after_type) {
  const GemmShape g = gemm_shape(s);
  const double m = g.m;
  const double n = g.n;
  const double k = g.k;
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
  const char* type = input == DType::bf16 ? "Bf16" : input == DType::f16 ? "Half" : "Tf32";
  model.kernel = fmt::format("{}<MmaConfig<{}, {}, {}, {}, {}, (Layout){}, {}, {}>, {}{}>(", kernel, t.bm, t.bn,
                             t.wm, t.wn, t.stages, t.swizzled ? 1 : 0, t.double_buffer ? 1 : 0, t.min_blocks, type,
                             after_type);
  model.block = {threads, 1, 1};
  model.smem_bytes = static_cast<std::size_t>(t.stages) * (t.bm * a_row * 16 + k_step * b_row * 16);
  model.dynamic_smem = true;
  model.blocks = std::ceil(m / t.bm) * std::ceil(n / t.bn);
  const int mi = t.wm / 16;
  const int ni = t.wn / 8;
  // The stage copies: thread i writes 16-byte chunk i % C of row i / C (C chunks a row), one
  // pass of threads / C rows after another; every pass starts on a 128-byte line, so each has the
  // first pass's pattern.
  const int a_passes = t.bm * 8 / threads;
  const std::string a_copy = t.swizzled ? "(tx/8)*8 + ((tx%8) ^ ((tx/8)%8))" : "(tx/8)*9 + tx%8";
  model.accesses.push_back(counted_access("A stage copy (cp.async.cg)", {banks::Op::cp_async_cg}, a_copy,
                                          model.block, steps * a_passes));
  const int b_passes = k_step * b_chunks / threads;
  const std::string b_swizzle = tf32 ? fmt::format("(((tx/{0})%4)*2)", b_chunks) : fmt::format("((tx/{})%8)", b_chunks);
  const std::string b_copy = t.swizzled ? fmt::format("(tx/{0})*{0} + ((tx%{0}) ^ {1})", b_chunks, b_swizzle)
                                        : fmt::format("(tx/{})*{} + tx%{}", b_chunks, b_row, b_chunks);
  model.accesses.push_back(counted_access("B stage copy (cp.async.cg)", {banks::Op::cp_async_cg}, b_copy,
                                          model.block, steps * b_passes));
  // ldmatrix.x4: lane l gives row l % 16 of its tile, chunk l / 16.
  const std::string a_expr = t.swizzled ? "(tx%16)*8 + (((tx%32)/16) ^ (tx%8))" : "(tx%16)*9 + (tx%32)/16";
  model.accesses.push_back(counted_access("A fragments (ldmatrix.x4)", {banks::Op::ldmatrix, 4}, a_expr,
                                          model.block, steps * mmas_per_step * mi));
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
    model.accesses.push_back(counted_access("B fragments (ldmatrix.x4.trans)", {banks::Op::ldmatrix, 4, true},
                                            b_expr, model.block, steps * mmas_per_step * ni / 2));
  }
  model.flops = 2 * m * n * k;
  model.global_bytes = model.blocks * steps * (t.bm + t.bn) * 128.0 + m * n * 4;
  model.traffic = fmt::format("K/{} elements of A and K/{} of B per output ({}x{} tile)", t.bn, t.bm, t.bm, t.bn);
  model.notes = "The stage copies are those of operands with 16-byte-aligned rows (cp.async.cg); a last partial "
                "K-step, or rows aligned only to 4 bytes (4-byte cp.async) or to one element (through "
                "registers), are not counted. The hardware counts cp.async "
                "writes apart from stores.";
  return model;
}

AccessModel wgmma_tiles(const Shape& s, DType input, const WgmmaTiles& t) {
  const GemmShape g = gemm_shape(s);
  const double m = g.m;
  const double n = g.n;
  const double k = g.k;
  const int bm = 64 * t.m_tiles * t.consumers;
  const double steps = std::ceil(k * static_cast<double>(dtype_bytes(input)) / 128);  // 128 bytes of K a stage
  AccessModel model;
  const int ranges = std::max(t.cluster_ranges, 1);
  const std::string scheduler = t.cluster_ranges > 0 ? "ClusterRanges"
                                : t.stream_k         ? "StreamKTiles"
                                : t.cluster_m > 1    ? fmt::format("ClusterTiles<{}>", t.cluster_m)
                                : t.persistent       ? "PersistentTiles"
                                                     : "StaticTiles";
  model.kernel = fmt::format("wgmma_gemm_kernel<WgmmaConfig<{}, {}, {}, {}, {:d}, {}, {}, {:d}>, {}>(", t.consumers,
                             t.m_tiles, t.bn, t.stages, t.specialized, scheduler,
                             t.cluster_ranges > 0 ? "ClusterSum"
                             : t.tma_store        ? "TmaStore"
                                                  : "RegisterStore",
                             t.swapped,
                             input == DType::bf16 ? "Bf16" : input == DType::f16 ? "Half" : "Tf32");
  model.block = {128 * (t.consumers + (t.specialized ? 1 : 0)), 1, 1};
  model.smem_bytes = t.smem_bytes;
  model.dynamic_smem = true;
  // Clusters walk column-aligned groups of cluster_m tiles; a group's tiles past C's last row
  // still run (their block multicasts its share of B), and store nothing.
  // Swapped, the tiles' rows run along C's columns.
  // ClusterRanges: a block for each tile and range.
  model.blocks = std::ceil((t.swapped ? n : m) / (bm * t.cluster_m)) * t.cluster_m * std::ceil((t.swapped ? m : n) / t.bn) *
                 ranges;
  model.per_tile = t.persistent;
  const double block_steps = std::ceil(steps / ranges);  // a block's K-steps: its range's
  model.tensor_cores_read_shared = true;
  if (t.tma_store) {
    // A consumer's 128 threads write a 64 x 32-float chunk of C at a time, 8 bytes each: warp w,
    // lane l hold row 16 w + l / 4 (and 8 below) and columns 2 (l % 4), +1 of every 8. A chunk is
    // four 64 x 8 boxes of 32-byte rows (2 KiB apart, the same banks), in a consumer's two 8 KiB
    // buffers (16 KiB apart). Per tile a thread makes m_tiles x bn / 32 chunks of 4 x 2 writes.
    model.accesses.push_back(counted_access("C staging writes (st.shared.v2, 32-byte rows)", "st",
                                            "(tx/128)*2048 + (((tx/32)%4)*16 + (tx%32)/4)*4 + tx%4",
                                            {128 * t.consumers, 1, 1}, 8,
                                            static_cast<double>(t.m_tiles) * (t.bn / 32) * 8));
  }
  if (ranges > 1) {
    // ClusterSum: thread x of the consumers writes its fragments of four sums (m_tiles x bn / 8
    // of them) at float4 s x threads + x, into its own block's ring.
    const double slots = static_cast<double>(t.m_tiles) * t.bn / 8;
    model.accesses.push_back(counted_access("the range's sums into the ring (st.shared.v4)", "st", "tx",
                                            {128 * t.consumers, 1, 1}, 16, slots));
    // Each block then adds 1 / ranges of the fragments over every block's sums: of those reads
    // (ld.shared::cluster.v4), the counters see the ones from its own shared memory, one a
    // fragment; the others cross the cluster's network.
    model.accesses.push_back(counted_access("its share of its own sums read back (ld.shared::cluster.v4)", "ld",
                                            "tx", {128 * t.consumers, 1, 1}, 16, slots / ranges));
  }
  if (t.swapped) {
    // Thread (warp w, lane l) of a consumer loads B's rows 16 w + l / 4 and 8 below (of its
    // slice), columns l % 4 and 4 to the right, of every 8 of K, from 32 x 32 boxes of 128-byte
    // rows swizzled by 128 bytes: row k's 4-float chunk c lies at chunk c ^ (k % 8). Shown for
    // the first slice and K's first column group; a stage is 4 x 4 such loads for each of a
    // thread's m_tiles slices.
    model.accesses.push_back(counted_access(
        "B fragments into registers (ld.shared.b32, wgmma's A operand)", "ld",
        fmt::format("(tx/128)*{} + ((tx/64)%2)*1024 + (tx%4)*32 + ((((tx/32)%2)*4 + (tx%32)/16) ^ (tx%4))*4 + "
                    "(tx%32)/4%4",
                    2048 * t.m_tiles),
        {128 * t.consumers, 1, 1}, 4, block_steps * 16.0 * t.m_tiles));
  }
  model.flops = 2 * m * n * k;
  model.global_bytes = model.blocks * block_steps * (bm + static_cast<double>(t.bn) / t.cluster_m) * 128.0 + m * n * 4;
  model.traffic = t.swapped ? fmt::format("K/{} elements of A and K/{} of B per output ({}x{} tile of C)", bm, t.bn,
                                          t.bn, bm)
                            : fmt::format("K/{} elements of A and K/{} of B per output ({}x{} tile{})", t.bn,
                                          bm * t.cluster_m, bm, t.bn, t.cluster_m > 1 ? ", B shared by a pair" : "");
  model.notes =
      "TMA writes the stages and wgmma reads them through the asynchronous path, which the load/store unit's "
      "shared-memory counters do not see; the 128-byte swizzle keeps wgmma's reads conflict-free by construction "
      "(each 16-byte column of 8 rows lies in 8 different bank groups). "
      + std::string(t.swapped ? "Swapped, B's tile is read into registers by ordinary shared-memory loads, "
                                "which the counters see. "
                              : "")
      + std::string(ranges > 1 ? "K in ranges: each block writes its range's sums into its ring, and the "
                                 "cluster's blocks add them, reading one another's through distributed shared "
                                 "memory, then store C from registers. "
                               : "")
      + std::string(t.tma_store ? "The staging writes are the tiles' with beta = 0 and 16-byte-aligned rows of C "
                                  "(otherwise C is stored from registers)."
                                : "C is stored from registers, to global memory.");
  return model;
}

}  // namespace smemlab::tensor_matmul::models
