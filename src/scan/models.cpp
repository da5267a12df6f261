#include "scan/models.hpp"

#include <cmath>
#include <string>

namespace smemlab::scan::models {
namespace {

using banks::Block;

constexpr int kThreads = 512;

// The word the kernels add: int32 as unsigned (scan_device.cuh).
std::string word_name(DType type) { return type == DType::i32 ? "unsigned int" : "float"; }

AccessModel tile_pass(std::string kernel, const Shape& s, int tile, std::size_t smem_bytes) {
  AccessModel m;
  m.kernel = std::move(kernel);
  m.block = {kThreads, 1, 1};
  m.smem_bytes = smem_bytes;
  const double n = static_cast<double>(count(s));
  m.blocks = std::ceil(n / tile);
  m.flops = n;
  m.global_bytes = 2 * n * 4;
  m.traffic = "every element read once and written once (this pass; the add pass does it again)";
  return m;
}

// Word i of the tree, as the kernel places it: tree_slot in tree_kernel.cuh.
std::string slot(const std::string& i, bool padded) {
  return padded ? "(" + i + ") + ((" + i + ") >> 5) + ((" + i + ") >> 10)" : i;
}

AccessModel tree(const Shape& s, DType type, bool padded) {
  constexpr int tile = 2 * kThreads;
  AccessModel m = tile_pass(
      "up_down_sweep_kernel<" + std::string(padded ? "true" : "false") + ", " + word_name(type) + ">(", s,
      tile, (tile + (padded ? tile / 32 + 1 : 0)) * 4);
  const Block all{kThreads, 1, 1};
  m.accesses.push_back(counted_access("store element t", "st", slot("tx", padded), all, 4, 1));
  m.accesses.push_back(counted_access("store element t + 512", "st", slot("tx + 512", padded), all, 4, 1));
  const auto round = [&](const std::string& phase, int active, int stride, bool down) {
    const Block threads{active, 1, 1};
    const std::string r = phase + " stride " + std::to_string(stride) + ": ";
    const std::string left = std::to_string(stride) + "*(2*tx+1)-1";
    const std::string right = std::to_string(stride) + "*(2*tx+2)-1";
    if (stride == 1 && !padded) {
      // Words 2t and 2t+1: the compiler reads (and in the down-sweep writes) both at once.
      m.accesses.push_back(counted_access(r + "read both halves in one load", "ld", "tx", threads, 8, 1));
      if (down)
        m.accesses.push_back(counted_access(r + "write both in one store", "st", "tx", threads, 8, 1));
      else
        m.accesses.push_back(counted_access(r + "write the right half", "st", right, threads, 4, 1));
      return;
    }
    m.accesses.push_back(counted_access(r + "read the left half", "ld", slot(left, padded), threads, 4, 1));
    m.accesses.push_back(counted_access(r + "read the right half", "ld", slot(right, padded), threads, 4, 1));
    if (down)
      m.accesses.push_back(
          counted_access(r + "write the left half", "st", slot(left, padded), threads, 4, 1));
    m.accesses.push_back(
        counted_access(r + "write the right half", "st", slot(right, padded), threads, 4, 1));
  };
  int stride = 1;
  for (int active = tile / 2; active > 0; active /= 2, stride *= 2) round("up-sweep", active, stride, false);
  const std::string root = slot(std::to_string(tile - 1), padded);
  m.accesses.push_back(counted_access("thread 0 reads the total", "ld", root, {1, 1, 1}, 4, 1));
  m.accesses.push_back(counted_access("thread 0 clears the root", "st", root, {1, 1, 1}, 4, 1));
  for (int active = 1; active < tile; active *= 2) {
    stride /= 2;
    round("down-sweep", active, stride, true);
  }
  m.accesses.push_back(counted_access("read the prefix of element t", "ld", slot("tx", padded), all, 4, 1));
  m.accesses.push_back(
      counted_access("read the prefix of element t + 512", "ld", slot("tx + 512", padded), all, 4, 1));
  m.notes = padded ? "The offset adds 33 words; the indices of every round spread over the banks."
                   : "Stride s puts lanes 2s words apart: 2s-way conflicts, 32-way at s = 16.";
  return m;
}

}  // namespace

AccessModel hillis_steele(const Shape& s, DType type) {
  AccessModel m = tile_pass("hillis_steele_kernel<" + word_name(type) + ">(", s, kThreads, 2 * kThreads * 4);
  const Block all{kThreads, 1, 1};
  m.accesses.push_back(counted_access("store the element into buffer 0", "st", "tx", all, 4, 1));
  for (int offset = 1; offset < kThreads; offset *= 2) {
    const std::string r = "round " + std::to_string(offset) + ": ";
    m.accesses.push_back(counted_access(r + "read own word", "ld", "tx", all, 4, 1));
    // Threads offset..511: as many warps as 512 - offset threads fill.
    m.accesses.push_back(counted_access(r + "read the word " + std::to_string(offset) + " before", "ld", "tx",
                                        {kThreads - offset, 1, 1}, 4, 1));
    m.accesses.push_back(counted_access(r + "write the other buffer", "st", "tx", all, 4, 1));
  }
  m.accesses.push_back(counted_access("read the scan", "ld", "tx", all, 4, 1));
  m.flops = static_cast<double>(count(s)) * 9;
  m.notes = "Consecutive words only: no conflicts, but 9 rounds over every word.";
  return m;
}

AccessModel work_efficient(const Shape& s, DType type) { return tree(s, type, false); }
AccessModel conflict_free(const Shape& s, DType type) { return tree(s, type, true); }

}  // namespace smemlab::scan::models
