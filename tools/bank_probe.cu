// Runs each access pattern of the catalogue once, one block per launch, so that Nsight Compute
// can count the shared-memory wavefronts each one needs (scripts/bank-table.sh). Every lane's
// byte address comes from the analyzer's expression evaluator, computed on the host; the kernel
// does exactly one shared-memory load or store of the pattern's width.
//   smemlab_bank_probe --list   the catalogue as CSV, no GPU needed
//   smemlab_bank_probe          run every pattern, in catalogue order
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "smemlab/banks.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"

namespace {

using smemlab::banks::Access;
using smemlab::banks::Block;
using smemlab::banks::Expression;

struct Pattern {
  std::string name;
  std::string op;  // "ld" or "st"
  std::string expression;
  Block block;
  int width;
  bool bytes;
};

std::vector<Pattern> catalogue() {
  std::vector<Pattern> c;
  const Block warp{32, 1, 1};
  for (int s = 1; s <= 33; ++s)  // 4-byte strides 1..33
    c.push_back({"stride" + std::to_string(s), "ld", "tx*" + std::to_string(s), warp, 4, false});
  // broadcast and partial broadcast
  c.push_back({"broadcast", "ld", "0", warp, 4, false});
  c.push_back({"pairs_share", "ld", "tx/2", warp, 4, false});
  c.push_back({"eight_share", "ld", "tx/8", warp, 4, false});
  c.push_back({"four_words", "ld", "tx%4", warp, 4, false});
  c.push_back({"bank0_16words", "ld", "(tx%16)*32", warp, 4, false});
  c.push_back({"bank0_2words", "ld", "(tx/16)*32", warp, 4, false});
  // narrow widths
  c.push_back({"u8_consecutive", "ld", "tx", warp, 1, false});
  c.push_back({"u8_word_stride", "ld", "tx*4", warp, 1, true});
  c.push_back({"u8_bank0", "ld", "tx*128", warp, 1, true});
  c.push_back({"u16_consecutive", "ld", "tx", warp, 2, false});
  c.push_back({"u16_bank0", "ld", "tx*64", warp, 2, false});
  // 8-byte accesses
  c.push_back({"u64_consecutive", "ld", "tx", warp, 8, false});
  c.push_back({"u64_stride2", "ld", "tx*2", warp, 8, false});
  c.push_back({"u64_stride16", "ld", "tx*16", warp, 8, false});
  c.push_back({"u64_broadcast", "ld", "0", warp, 8, false});
  c.push_back({"u64_pairs", "ld", "tx/2", warp, 8, false});
  c.push_back({"u64_halves_same", "ld", "tx%16", warp, 8, false});
  c.push_back({"u64_halves_swapped", "ld", "(tx+16)%32", warp, 8, false});
  // halves that fit one wavefront together, one of them conflicting: merged they need 4
  // wavefronts, served apart 4 + 1
  c.push_back({"u64_merge_with_conflict", "ld", "(tx/16)*(tx%4+8) + (1-tx/16)*((tx%4)*16)", warp, 8, false});
  c.push_back({"u128_merge_with_conflict", "ld", "(tx/8%2)*(tx%2+8) + (1-tx/8%2)*((tx%2)*8)", warp, 16, false});
  // 16-byte accesses
  c.push_back({"u128_consecutive", "ld", "tx", warp, 16, false});
  c.push_back({"u128_stride2", "ld", "tx*2", warp, 16, false});
  c.push_back({"u128_stride8", "ld", "tx*8", warp, 16, false});
  c.push_back({"u128_broadcast", "ld", "0", warp, 16, false});
  c.push_back({"u128_quarters_same", "ld", "tx%8", warp, 16, false});
  c.push_back({"u128_xor1", "ld", "tx^1", warp, 16, false});
  // the SGEMM fragment reads: a warp of 4 x 8 lanes reading 4 (A) or 8 (B) float4s, with lanes
  // numbered row-major (A: tx/8, B: tx%8) or rows fastest (A: tx%4, B: (tx/4)%8)
  c.push_back({"u128_sgemm_a_rows_fastest", "ld", "tx%4", warp, 16, false});
  c.push_back({"u128_sgemm_b_rows_fastest", "ld", "(tx/4)%8", warp, 16, false});
  c.push_back({"u128_sgemm_a_row_major", "ld", "tx/8", warp, 16, false});
  c.push_back({"u128_lane_mod2", "ld", "tx%2", warp, 16, false});
  c.push_back({"u128_lane_div2_mod4", "ld", "(tx/2)%4", warp, 16, false});
  c.push_back({"u128_lane_mod16", "ld", "tx%16", warp, 16, false});
  c.push_back({"u128_lane_div16", "ld", "tx/16", warp, 16, false});
  // the transpose tiles of the tutorial “Shared Memory” (column reads of a 32x32 tile), 4 and 8
  // bytes
  const Block tile{32, 32, 1};
  c.push_back({"tile_column", "ld", "tx*32+ty", tile, 4, false});
  c.push_back({"tile_column_padded", "ld", "tx*33+ty", tile, 4, false});
  c.push_back({"tile_column_xor", "ld", "tx*32+(ty^tx)", tile, 4, false});
  c.push_back({"tile_row_store", "st", "ty*32+tx", tile, 4, false});
  c.push_back({"tile_row_store_xor", "st", "ty*32+(tx^ty)", tile, 4, false});
  c.push_back({"tile_column_f64", "ld", "tx*32+ty", tile, 8, false});
  c.push_back({"tile_column_f64_padded", "ld", "tx*33+ty", tile, 8, false});
  c.push_back({"tile_column_f64_xor", "ld", "tx*32+(ty^tx)", tile, 8, false});
  // the tuned transpose's 16-byte stores and 4-byte column reads (64x64 tile, chunk swizzle)
  const Block vec{512, 1, 1};
  c.push_back({"tuned_chunk_store", "st", "(tx/16)*16 + (tx%16 ^ ((tx/16)/4)%16)", vec, 16, false});
  c.push_back({"tuned_column_read", "ld",
               "(4*(8*((tx/32)%2)+tx%8))*64 + 4*(((4*((tx/32)/2)+(tx%32)/8)/4) ^ ((8*((tx/32)%2)+tx%8)%16)) + (4*((tx/32)/2)+(tx%32)/8)%4",
               vec, 4, false});
  // the matmul tiles of “Shared Memory and Bank Conflicts” (16x16 block): column-first A reads and
  // stores, and padded
  const Block mm{16, 16, 1};
  c.push_back({"matmul_conflict_a_read", "ld", "tx*16", mm, 4, false});
  c.push_back({"matmul_padded_a_read", "ld", "tx*17", mm, 4, false});
  c.push_back({"matmul_conflict_store", "st", "tx*16+ty", mm, 4, false});
  c.push_back({"matmul_padded_store", "st", "tx*17+ty", mm, 4, false});
  c.push_back({"matmul_row_b_read", "ld", "tx", mm, 4, false});
  // partial warps
  c.push_back({"partial_48_stride2", "ld", "tx*2", {48, 1, 1}, 4, false});
  c.push_back({"partial_20_stride32", "ld", "tx*32", {20, 1, 1}, 4, false});
  c.push_back({"partial_40_u128", "ld", "tx", {40, 1, 1}, 16, false});
  // stores
  c.push_back({"st_consecutive", "st", "tx", warp, 4, false});
  c.push_back({"st_stride2", "st", "tx*2", warp, 4, false});
  c.push_back({"st_stride32", "st", "tx*32", warp, 4, false});
  c.push_back({"st_stride33", "st", "tx*33", warp, 4, false});
  c.push_back({"st_same_word", "st", "0", warp, 4, false});
  c.push_back({"st_u64_consecutive", "st", "tx", warp, 8, false});
  c.push_back({"st_u64_stride16", "st", "tx*16", warp, 8, false});
  c.push_back({"st_u128_consecutive", "st", "tx", warp, 16, false});
  c.push_back({"st_u128_stride8", "st", "tx*8", warp, 16, false});
  c.push_back({"st_u8_consecutive", "st", "tx", warp, 1, false});
  return c;
}

template <int W>
struct Word;
template <> struct Word<1> { using type = unsigned char; };
template <> struct Word<2> { using type = unsigned short; };
template <> struct Word<4> { using type = unsigned int; };
template <> struct Word<8> { using type = uint2; };
template <> struct Word<16> { using type = uint4; };

__device__ unsigned int fold(unsigned int v) { return v; }
__device__ unsigned int fold(unsigned short v) { return v; }
__device__ unsigned int fold(unsigned char v) { return v; }
__device__ unsigned int fold(uint2 v) { return v.x ^ v.y; }
__device__ unsigned int fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

template <class T>
__device__ T make_value(unsigned int v) {
  if constexpr (sizeof(T) == 8) {
    return make_uint2(v, v);
  } else if constexpr (sizeof(T) == 16) {
    return make_uint4(v, v, v, v);
  } else {
    return static_cast<T>(v);
  }
}

// One shared-memory access per thread at its byte offset: a load (kept alive through `out`) or
// a store (read back by thread 0 after a barrier, so it is not removed).
template <int W>
__global__ void probe_kernel(const long long* offsets, bool store, unsigned int* out) {
  using T = typename Word<W>::type;
  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  T* p = reinterpret_cast<T*>(smem + offsets[tid]);
  if (store) {
    *p = make_value<T>(tid);
    __syncthreads();
    if (tid == 0) out[0] = smem[0];
  } else {
    out[tid] = fold(*p);
  }
}

template <int W>
void launch(const long long* offsets, bool store, unsigned int* out, dim3 block, std::size_t smem) {
  SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(probe_kernel<W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(smem)));
  probe_kernel<W><<<1, block, smem>>>(offsets, store, out);
  SMEMLAB_LAUNCH_CHECK();
}

std::vector<long long> offsets_of(const Pattern& p) {
  const Access a{Expression::parse(p.expression), p.block, p.width, p.bytes, 0};
  smemlab::banks::validate(a);
  std::vector<long long> out;
  for (int z = 0; z < p.block.z; ++z)
    for (int y = 0; y < p.block.y; ++y)
      for (int x = 0; x < p.block.x; ++x) {
        const long long v = a.expression.eval(x, y, z);
        out.push_back(p.bytes ? v : v * p.width);
      }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto patterns = catalogue();
    if (argc > 1 && std::strcmp(argv[1], "--list") == 0) {
      std::printf("name,op,expression,block,width,bytes\n");
      for (const auto& p : patterns)
        std::printf("%s,%s,\"%s\",%dx%dx%d,%d,%d\n", p.name.c_str(), p.op.c_str(), p.expression.c_str(),
                    p.block.x, p.block.y, p.block.z, p.width, p.bytes ? 1 : 0);
      return 0;
    }
    smemlab::DeviceBuffer<unsigned int> out(1024);
    for (const auto& p : patterns) {
      const auto offsets = offsets_of(p);
      long long top = 0;
      for (const long long o : offsets) top = std::max(top, o);
      smemlab::DeviceBuffer<long long> d_offsets(offsets.size());
      d_offsets.upload(offsets, nullptr);
      const dim3 block(p.block.x, p.block.y, p.block.z);
      const std::size_t smem = static_cast<std::size_t>(top) + 16;
      const bool store = p.op == "st";
      switch (p.width) {
        case 1: launch<1>(d_offsets.data(), store, out.data(), block, smem); break;
        case 2: launch<2>(d_offsets.data(), store, out.data(), block, smem); break;
        case 4: launch<4>(d_offsets.data(), store, out.data(), block, smem); break;
        case 8: launch<8>(d_offsets.data(), store, out.data(), block, smem); break;
        default: launch<16>(d_offsets.data(), store, out.data(), block, smem); break;
      }
      SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "smemlab_bank_probe: %s\n", e.what());
    return 1;
  }
}
