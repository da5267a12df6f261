#pragma once
// Device building blocks of the scan steps: the word each element type is added as, the pass
// that adds tile offsets (steps 01-04), and the tile scan of steps 04-06: a thread's items in
// registers, the warp by shuffles, the warps through one shared word each.
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace smemlab::scan::detail {

constexpr unsigned kFullWarp = 0xFFFFFFFFU;

// int32 is scanned as unsigned: unsigned additions wrap modulo 2^32 by definition, and give the
// bits of two's-complement int32 addition.
template <class T>
using Word = std::conditional_t<std::is_same_v<T, float>, float, unsigned>;

// A word's 32 bits and back, for 16-byte accesses and the look-back's status words.
template <class W>
__device__ __forceinline__ W bits_to_word(unsigned bits) {
  if constexpr (std::is_same_v<W, float>) {
    return __uint_as_float(bits);
  } else {
    return bits;
  }
}
template <class W>
__device__ __forceinline__ unsigned word_to_bits(W w) {
  if constexpr (std::is_same_v<W, float>) {
    return __float_as_uint(w);
  } else {
    return w;
  }
}

// Adds offsets[b] to every element of tile b (one block a tile, launched for tiles 1 and up:
// tile 0's offset is zero). The offset goes first, as in every step: fixed order, fixed bits.
template <class W>
__global__ void add_tile_offsets_kernel(W* out, std::size_t n, std::size_t tile, const W* offsets) {
  const std::size_t b = std::size_t{blockIdx.x} + 1;
  const W offset = offsets[b];
  const std::size_t end = b * tile + tile < n ? b * tile + tile : n;
  for (std::size_t i = b * tile + threadIdx.x; i < end; i += blockDim.x) out[i] = offset + out[i];
}

// A tile of Threads x Items consecutive elements, scanned with each thread's Items consecutive
// elements in its registers ("blocked": thread t holds elements t*Items to t*Items+Items-1).
// Global memory is read and written "warp-striped" (lane l takes every 32nd element, or every
// 32nd 16-byte vector, of its warp's part), so that each instruction moves whole 128-byte
// lines; each warp turns one arrangement into the other through its own part of `exchange`.
template <class W, int Threads, int Items>
struct TileScan {
  static_assert(Threads % 32 == 0 && Items % 4 == 0, "whole warps, whole 16-byte vectors");
  static constexpr int kTile = Threads * Items;
  static constexpr int kWarps = Threads / 32;
  static constexpr int kWarpPart = 32 * Items;
  // One padding word after every 32: the warp-striped accesses fall in 32 different banks, and
  // so do a thread's Items consecutive words (threads Items words apart) for Items of 8 and 16;
  // for 24 two lanes share a bank (2 wavefronts an access, `smemlab banks '24*tx + ((24*tx) >> 5)'
  // --block 32`).
  static constexpr int padded(int i) { return i + i / 32; }

  struct Storage {
    W exchange[kTile + kTile / 32];
    W warp_totals[kWarps];
  };

  // The warp's part of the tile at `tile_in` (kTile elements from there, of which `valid` exist:
  // zeros past them) into this thread's registers. Vector: 16-byte loads (tile_in 16-byte
  // aligned, all kTile valid).
  template <bool Vector>
  static __device__ __forceinline__ void load(const W* __restrict__ tile_in, int valid, W (&items)[Items],
                                              Storage& s) {
    const int lane = threadIdx.x % 32;
    const int part = threadIdx.x / 32 * kWarpPart;
    __syncwarp();  // the warp's reads of its part from an earlier tile are done
    if constexpr (Vector) {
      const auto* v = reinterpret_cast<const uint4*>(tile_in + part);
#pragma unroll
      for (int j = 0; j < Items / 4; ++j) {
        const uint4 q = v[32 * j + lane];
        const int at = part + 4 * (32 * j + lane);
        s.exchange[padded(at + 0)] = bits_to_word<W>(q.x);
        s.exchange[padded(at + 1)] = bits_to_word<W>(q.y);
        s.exchange[padded(at + 2)] = bits_to_word<W>(q.z);
        s.exchange[padded(at + 3)] = bits_to_word<W>(q.w);
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        const int at = part + 32 * j + lane;
        s.exchange[padded(at)] = at < valid ? tile_in[at] : W(0);
      }
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < Items; ++j) items[j] = s.exchange[padded(part + lane * Items + j)];
  }

  // The other way: registers to the tile at `tile_out`, `valid` elements of it.
  template <bool Vector>
  static __device__ __forceinline__ void store(W* tile_out, int valid, const W (&items)[Items], Storage& s) {
    const int lane = threadIdx.x % 32;
    const int part = threadIdx.x / 32 * kWarpPart;
    __syncwarp();  // the warp's reads of its part, if any, are done
#pragma unroll
    for (int j = 0; j < Items; ++j) s.exchange[padded(part + lane * Items + j)] = items[j];
    __syncwarp();
    if constexpr (Vector) {
      auto* v = reinterpret_cast<uint4*>(tile_out + part);
#pragma unroll
      for (int j = 0; j < Items / 4; ++j) {
        const int at = part + 4 * (32 * j + lane);
        v[32 * j + lane] =
            uint4{word_to_bits(s.exchange[padded(at + 0)]), word_to_bits(s.exchange[padded(at + 1)]),
                  word_to_bits(s.exchange[padded(at + 2)]), word_to_bits(s.exchange[padded(at + 3)])};
      }
    } else {
#pragma unroll
      for (int j = 0; j < Items; ++j) {
        const int at = part + 32 * j + lane;
        if (at < valid) tile_out[at] = s.exchange[padded(at)];
      }
    }
  }

  // The sum of a thread's items, left to right.
  static __device__ __forceinline__ W thread_total(const W (&items)[Items]) {
    W total = items[0];
#pragma unroll
    for (int j = 1; j < Items; ++j) total = total + items[j];
    return total;
  }

  // The block's part of the scan, given every thread's total: returns the sum of the totals of
  // the threads before this one (its block-exclusive prefix), and sets `block_total`. Every
  // thread of the block calls it; it ends with a barrier, after which `s` may be reused.
  static __device__ __forceinline__ W block_prefix(W total, W& block_total, Storage& s) {
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    // Inclusive warp scan (Hillis-Steele in registers): log2(32) = 5 shuffles.
    W inclusive = total;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const W other = __shfl_up_sync(kFullWarp, inclusive, offset);
      if (lane >= offset) inclusive = other + inclusive;
    }
    W lane_prefix = __shfl_up_sync(kFullWarp, inclusive, 1);
    if (lane == 0) lane_prefix = W(0);
    if (lane == 31) s.warp_totals[warp] = inclusive;
    __syncthreads();
    // The warps before this one, added in warp order: a broadcast read each.
    W warp_prefix = W(0);
    W all = s.warp_totals[0];
    for (int w = 1; w < kWarps; ++w) {
      if (w == warp) warp_prefix = all;
      all = all + s.warp_totals[w];
    }
    block_total = all;
    __syncthreads();
    return warp == 0 ? lane_prefix : warp_prefix + lane_prefix;
  }

  // The scan of a thread's items from its prefix, in place: inclusive or exclusive.
  static __device__ __forceinline__ void scan_items(W prefix, bool exclusive, W (&items)[Items]) {
    W running = prefix;
#pragma unroll
    for (int j = 0; j < Items; ++j) {
      const W x = items[j];
      const W next = running + x;
      items[j] = exclusive ? running : next;
      running = next;
    }
  }

  // One tile: elements [base, base + kTile) of in[0, n) scanned into out. prefix_of(total), called
  // by every thread with the tile's total, returns the sum of everything before the tile (it may
  // wait and use barriers). 16-byte accesses where `vector` says in and out allow them and the
  // tile is whole; the last tile, or unaligned arrays, element by element.
  template <class PrefixOf>
  static __device__ __forceinline__ void scan_tile(const W* in, W* out, std::size_t n, std::size_t base,
                                                   bool vector, bool exclusive, Storage& s,
                                                   PrefixOf prefix_of) {
    const std::size_t left = n - base;
    const int valid = left < static_cast<std::size_t>(kTile) ? static_cast<int>(left) : kTile;
    const bool whole_vectors = vector && valid == kTile;
    W items[Items];
    if (whole_vectors) {
      load<true>(in + base, valid, items, s);
    } else {
      load<false>(in + base, valid, items, s);
    }
    W total;
    const W thread_prefix = block_prefix(thread_total(items), total, s);
    const W tile_prefix = prefix_of(total);
    scan_items(tile_prefix + thread_prefix, exclusive, items);
    if (whole_vectors) {
      store<true>(out + base, valid, items, s);
    } else {
      store<false>(out + base, valid, items, s);
    }
  }
};

// Whether a pointer allows 16-byte accesses.
__host__ __device__ inline bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace smemlab::scan::detail
