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

// The tile scan of steps 04-06 (TileScan in scan_device.cuh), Items elements a thread: the
// exchange between the warp-striped order of the loads and stores and each thread's consecutive
// elements, both ways, through words padded one after every 32; then the warps' totals. Vector:
// the warp-striped side moves 16-byte vectors (four words a lane, lanes 4 words apart); else one
// word a lane. The last, partial tile takes the one-word path: the same wavefronts.
void tile_scan_accesses(AccessModel& m, int threads, int items, bool vector) {
  const Block all{threads, 1, 1};
  const std::string part = std::to_string(32 * items) + "*(tx>>5)";
  const auto padded = [](const std::string& p) { return "(" + p + ") + ((" + p + ") >> 5)"; };
  const auto striped = [&](int j) {
    return vector ? part + " + 4*(32*" + std::to_string(j / 4) + " + (tx&31)) + " + std::to_string(j % 4)
                  : part + " + 32*" + std::to_string(j) + " + (tx&31)";
  };
  const auto blocked = [&](int j) {
    return part + " + " + std::to_string(items) + "*(tx&31) + " + std::to_string(j);
  };
  for (int j = 0; j < items; ++j)
    m.accesses.push_back(counted_access("load: element " + std::to_string(j) + " as loaded", "st",
                                        padded(striped(j)), all, 4, 1));
  for (int j = 0; j < items; ++j)
    m.accesses.push_back(
        counted_access("load: thread's element " + std::to_string(j), "ld", padded(blocked(j)), all, 4, 1));
  const int warps = threads / 32;
  m.accesses.push_back(
      counted_access("lane 31 of each warp stores the warp's total", "st", "0", {1, 1, 1}, 4, warps));
  // The compiler reads the totals four at a time: 16-byte loads of one address, which the hardware
  // serves a half-warp a wavefront.
  m.accesses.push_back(counted_access("every thread reads the warps' totals", "ld", "0", all, 16, warps / 4));
  for (int j = 0; j < items; ++j)
    m.accesses.push_back(
        counted_access("store: thread's element " + std::to_string(j), "st", padded(blocked(j)), all, 4, 1));
  for (int j = 0; j < items; ++j)
    m.accesses.push_back(counted_access("store: element " + std::to_string(j) + " to be stored", "ld",
                                        padded(striped(j)), all, 4, 1));
}

AccessModel tile_scan(std::string kernel, const Shape& s, int threads, int items, bool vector) {
  const int tile = threads * items;
  AccessModel m = tile_pass(std::move(kernel), s, tile, (tile + tile / 32 + threads / 32) * 4);
  m.block = {threads, 1, 1};
  tile_scan_accesses(m, threads, items, vector);
  return m;
}

}  // namespace

AccessModel warp_shuffle(const Shape& s, DType type) {
  AccessModel m = tile_scan("warp_shuffle_kernel<" + word_name(type) + ">(", s, 512, 8, false);
  m.flops = static_cast<double>(count(s)) * 2;
  m.notes =
      "The exchange is conflict-free both ways: 8 words a thread put lanes 8 words apart, and the "
      "padding word after every 32 moves each group of 4 lanes to its own banks. The loads exceed the "
      "ideal by the warps' totals, read 16 bytes of one address at a time: two wavefronts each.";
  return m;
}

AccessModel reduce_then_scan(const Shape& s, DType type) {
  AccessModel m = tile_scan("scan_from_offsets_kernel<" + word_name(type) + ">(", s, 512, 16, true);
  m.flops = static_cast<double>(count(s)) * 2;
  m.traffic = "every element read once and written once (this pass; the totals' pass read it once before)";
  m.notes =
      "The third of the step's kernels, the one that writes: the first only reads and sums (16 warp "
      "totals through shared memory), the second scans the tiles' totals. The exchange is conflict-free; "
      "the loads exceed the ideal by the warps' totals, read 16 bytes of one address at a time: two "
      "wavefronts each.";
  return m;
}

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
