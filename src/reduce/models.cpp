#include "reduce/models.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace smemlab::reduce::models {
namespace {

using banks::Block;

// A block of `threads` threads with one element each in shared memory, over n elements read
// once, `per_block` of them per block.
AccessModel tree_block(std::string kernel, double n, int elem, int threads, double per_block) {
  AccessModel m;
  m.kernel = std::move(kernel) + (elem == 4 ? "<float>(" : "<double>(");
  m.block = {threads, 1, 1};
  m.smem_bytes = static_cast<std::size_t>(threads) * elem;
  m.blocks = std::ceil(n / per_block);
  m.flops = n;
  m.global_bytes = n * elem;
  m.traffic = "every element read once";
  return m;
}

}  // namespace

// Rounds 64, 32, ..., 1 in which the first `offset` threads add s_y[tid + offset] into
// s_y[tid]; thread 0 then reads the block's sum.
AccessModel tutorial_tree(const Shape& s, DType type, bool dynamic) {
  const int elem = static_cast<int>(dtype_bytes(type));
  AccessModel m = tree_block(dynamic ? "shared_dynamic_kernel" : "shared_static_kernel",
                             static_cast<double>(count(s)), elem, 128, 128);
  m.dynamic_smem = dynamic;
  m.accesses.push_back(counted_access("load into s_y", "st", "tx", m.block, elem, 1));
  for (int offset = 64; offset >= 1; offset /= 2) {
    const Block active{offset, 1, 1};
    const std::string r = "round " + std::to_string(offset) + ": ";
    m.accesses.push_back(counted_access(r + "read s_y[tid]", "ld", "tx", active, elem, 1));
    m.accesses.push_back(counted_access(r + "read s_y[tid+offset]", "ld", "tx", active, elem, 1));
    m.accesses.push_back(counted_access(r + "write s_y[tid]", "st", "tx", active, elem, 1));
  }
  m.accesses.push_back(counted_access("thread 0 reads the block's sum", "ld", "0", {1, 1, 1}, elem, 1));
  m.notes = "The host adds the block sums; the first round's warps read s_y[tid] and s_y[tid+64].";
  return m;
}

AccessModel classic_tree(const Shape& s, DType type, Tree tree) {
  const int elem = static_cast<int>(dtype_bytes(type));
  const bool two_per_thread = tree == Tree::first_add || tree == Tree::warp_shuffle;
  const bool halving = tree == Tree::sequential || two_per_thread;  // s = 128, 64, ...
  const char* kernel = tree == Tree::divergent    ? "interleaved_divergent_kernel"
                       : tree == Tree::strided    ? "interleaved_strided_kernel"
                       : tree == Tree::sequential ? "sequential_kernel"
                       : tree == Tree::first_add  ? "first_add_kernel"
                                                  : "warp_shuffle_kernel";
  AccessModel m = tree_block(kernel, static_cast<double>(count(s)), elem, 256, two_per_thread ? 512 : 256);
  m.accesses.push_back(counted_access("store the loaded value(s)", "st", "tx", m.block, elem, 1));
  const int last = halving ? (tree == Tree::warp_shuffle ? 64 : 1) : 128;
  for (int s = halving ? 128 : 1; halving ? s >= last : s <= last; s = halving ? s / 2 : s * 2) {
    const std::string r = "round " + std::to_string(s) + ": ";
    if (tree == Tree::divergent) {
      // threads with tid % 2s == 0; the others in their warp point at the same word (no cost)
      const int groups = 256 / (2 * s);
      const Block warps{s >= 32 ? 32 * groups : 256, 1, 1};
      const std::string e = s >= 32 ? "(tx/32)*" + std::to_string(2 * s) : "tx-tx%" + std::to_string(2 * s);
      m.accesses.push_back(counted_access(r + "read sdata[tid]", "ld", e, warps, elem, 1));
      m.accesses.push_back(counted_access(r + "read sdata[tid+s]", "ld", e, warps, elem, 1));
      m.accesses.push_back(counted_access(r + "write sdata[tid]", "st", e, warps, elem, 1));
    } else if (tree == Tree::strided) {
      const Block active{std::max(1, 128 / s), 1, 1};
      const std::string e = std::to_string(2 * s) + "*tx";
      if (s == 1) {  // sdata[2t] and sdata[2t+1]: one load of both (LDS.64 for float, LDS.128 for double)
        m.accesses.push_back(counted_access(r + "read sdata[2t], sdata[2t+1] in one load", "ld", "tx", active, 2 * elem, 1));
      } else {
        m.accesses.push_back(counted_access(r + "read sdata[2st]", "ld", e, active, elem, 1));
        m.accesses.push_back(counted_access(r + "read sdata[2st+s]", "ld", e, active, elem, 1));
      }
      m.accesses.push_back(counted_access(r + "write sdata[2st]", "st", e, active, elem, 1));
    } else {  // sequential addressing: the first s threads
      const Block active{s, 1, 1};
      m.accesses.push_back(counted_access(r + "read sdata[tid]", "ld", "tx", active, elem, 1));
      m.accesses.push_back(counted_access(r + "read sdata[tid+s]", "ld", "tx", active, elem, 1));
      m.accesses.push_back(counted_access(r + "write sdata[tid]", "st", "tx", active, elem, 1));
    }
  }
  if (tree == Tree::warp_shuffle) {
    m.accesses.push_back(counted_access("last warp reads sdata[tid], sdata[tid+32]", "ld", "tx", {32, 1, 1}, elem, 2));
  } else {
    m.accesses.push_back(counted_access("thread 0 reads the block's sum", "ld", "0", {1, 1, 1}, elem, 1));
  }
  m.notes = "First pass only: later passes over the block sums are " + std::to_string(two_per_thread ? 512 : 256) +
            " times smaller.";
  return m;
}

}  // namespace smemlab::reduce::models
