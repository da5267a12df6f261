#include "transpose/models.hpp"

#include <cmath>
#include <string>

namespace smemlab::transpose::models {

AccessModel tile(const Shape& s, DType type, Layout layout) {
  const int elem = static_cast<int>(dtype_bytes(type));
  AccessModel m;
  const char* name = layout == Layout::padded ? "PaddedLayout" : layout == Layout::swizzled ? "SwizzledLayout" : "PlainLayout";
  m.kernel = std::string("tile_transpose_kernel<") + name + ", " + std::string(dtype_name(type)) + ">(";
  m.block = {32, 32, 1};
  m.smem_bytes = static_cast<std::size_t>(layout == Layout::padded ? 32 * 33 : 32 * 32) * elem;
  const MatrixShape size = matrix_shape(s);
  const double r = size.rows;
  const double c = size.cols;
  m.blocks = std::ceil(r / 32) * std::ceil(c / 32);
  const char* store = layout == Layout::padded ? "ty*33+tx" : layout == Layout::swizzled ? "ty*32+(tx^ty)" : "ty*32+tx";
  const char* read = layout == Layout::padded ? "tx*33+ty" : layout == Layout::swizzled ? "tx*32+(ty^tx)" : "tx*32+ty";
  m.accesses.push_back(counted_access("tile row store", "st", store, m.block, elem, 1));
  m.accesses.push_back(counted_access("tile column read", "ld", read, m.block, elem, 1));
  m.global_bytes = 2 * r * c * elem;
  m.traffic = "one read and one write per element, coalesced both ways";
  return m;
}

AccessModel tuned(const Shape& s, DType type) {
  const int elem = static_cast<int>(dtype_bytes(type));
  const MatrixShape size = matrix_shape(s);
  const double r = size.rows;
  const double c = size.cols;
  const long long per_chunk = 16 / elem;  // elements in a 16-byte chunk
  AccessModel m;
  m.global_bytes = 2 * r * c * elem;
  if (size.rows % per_chunk == 0 && size.cols % per_chunk == 0) {
    m.kernel = "tuned_vec_kernel(Args<" + std::string(dtype_name(type)) + ">)";
    m.block = {512, 1, 1};
    m.smem_bytes = 64 * 64 * static_cast<std::size_t>(elem);
    m.blocks = std::ceil(r / 64) * std::ceil(c / 64);
    if (elem == 4) {
      m.accesses.push_back(counted_access("16-byte chunk stores, chunk-swizzled", "st",
                                          "(tx/16)*16 + (tx%16 ^ ((tx/16)/4)%16)", m.block, 16, 2));
      m.accesses.push_back(counted_access("4-byte column reads (4 per output chunk)", "ld",
                                          "(4*(8*((tx/32)%2)+tx%8))*64 + 4*(((4*((tx/32)/2)+(tx%32)/8)/4) ^ ((8*((tx/32)%2)+tx%8)%16)) + (4*((tx/32)/2)+(tx%32)/8)%4",
                                          m.block, 4, 8));
    } else {
      m.accesses.push_back(counted_access("16-byte chunk stores, chunk-swizzled", "st",
                                          "(tx/32)*32 + (tx%32 ^ ((tx/32)/2)%32)", m.block, 16, 4));
      m.accesses.push_back(counted_access("8-byte column reads (2 per output chunk)", "ld",
                                          "(2*(8*((tx/32)%4)+tx%8))*64 + 2*(((4*((tx/32)/4)+(tx%32)/8)/2) ^ ((8*((tx/32)%4)+tx%8)%32)) + (4*((tx/32)/4)+(tx%32)/8)%2",
                                          m.block, 8, 8));
    }
    m.traffic = "one read and one write per element, 16 bytes per lane";
    m.notes = "The 16-byte path (row lengths that keep 16-byte alignment, aligned pointers).";
  } else {
    m.kernel = "tuned_kernel<" + std::string(dtype_name(type)) + ">(";
    m.block = {32, 8, 1};
    m.smem_bytes = 32 * 32 * static_cast<std::size_t>(elem);
    m.blocks = std::ceil(r / 32) * std::ceil(c / 32);  // tiles; blocks are persistent
    m.accesses.push_back(counted_access("tile row stores, swizzled", "st", "ty*32+(tx^ty)", m.block, elem, 4));
    m.accesses.push_back(counted_access("tile column reads, swizzled", "ld", "tx*32+(ty^tx)", m.block, elem, 4));
    m.traffic = "one read and one write per element";
    m.notes = "Counted per 32x32 tile: persistent blocks walk through the tiles.";
  }
  return m;
}

}  // namespace smemlab::transpose::models
