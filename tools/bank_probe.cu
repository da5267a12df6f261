// Runs each access pattern of the catalogue once, one block per launch, so that Nsight Compute
// can count the shared-memory wavefronts each one needs (scripts/bank-table.sh). Every lane's
// byte address comes from the analyzer's expression evaluator, computed on the host; the kernel
// executes exactly one instruction of the pattern: a load or store of its width, an ldmatrix or
// stmatrix, or a cp.async from global memory.
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
  std::string op;  // an instruction as smemlab::banks::parse_instruction reads it
  std::string expression;
  Block block;
  int width;
  bool bytes;
  int swizzle = 0;  // TMA's swizzle span in bytes, applied to each address as the analyzer does
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
  // ldmatrix: lane l gives row l % 8 of matrix l / 8. Rows 128 bytes apart all start in bank 0;
  // 144 (padded by 16) or 64 bytes apart spread over 8 or 2 groups of 4 banks.
  c.push_back({"ldsm_x1_rows128", "ldmatrix.x1", "tx*8", warp, 16, false});
  c.push_back({"ldsm_x1_rows144", "ldmatrix.x1", "tx*9", warp, 16, false});
  c.push_back({"ldsm_x1_rows64", "ldmatrix.x1", "tx*4", warp, 16, false});
  c.push_back({"ldsm_x1_other_lanes_ignored", "ldmatrix.x1", "tx%8 + (tx/8)*64", warp, 16, false});
  c.push_back({"ldsm_x2_consecutive", "ldmatrix.x2", "tx", warp, 16, false});
  c.push_back({"ldsm_x2_same_rows", "ldmatrix.x2", "tx%8", warp, 16, false});
  c.push_back({"ldsm_x2_rows128", "ldmatrix.x2", "tx*8", warp, 16, false});
  c.push_back({"ldsm_x4_consecutive", "ldmatrix.x4", "tx", warp, 16, false});
  c.push_back({"ldsm_x4_broadcast", "ldmatrix.x4", "0", warp, 16, false});
  c.push_back({"ldsm_x4_half_rows", "ldmatrix.x4", "tx%16", warp, 16, false});
  // the A fragments of the tensor-core steps: lane l reads row l % 16, 16-byte chunk l / 16 of a
  // tile of 128-byte rows, unpadded, padded by 16 bytes, or with the chunk swizzled by row % 8
  c.push_back({"ldsm_x4_tile_unpadded", "ldmatrix.x4", "(tx%16)*8 + tx/16", warp, 16, false});
  c.push_back({"ldsm_x4_tile_padded", "ldmatrix.x4", "(tx%16)*9 + tx/16", warp, 16, false});
  c.push_back({"ldsm_x4_tile_swizzled", "ldmatrix.x4", "(tx%16)*8 + ((tx/16) ^ (tx%8))", warp, 16, false});
  c.push_back({"ldsm_x4_trans_tile_unpadded", "ldmatrix.x4.trans", "(tx%16)*8 + tx/16", warp, 16, false});
  c.push_back({"ldsm_x4_trans_tile_swizzled", "ldmatrix.x4.trans", "(tx%16)*8 + ((tx/16) ^ (tx%8))", warp, 16, false});
  // B of a 256-column bf16 tile (512-byte rows), swizzled as the warp-tile step has it
  c.push_back({"ldsm_x4_trans_b256_swizzled", "ldmatrix.x4.trans", "(tx%16)*32 + ((tx/16) ^ (tx%8))", warp, 16, false});
  c.push_back({"ldsm_x2_trans_rows64", "ldmatrix.x2.trans", "tx*4", warp, 16, false});
  // stmatrix writes the rows ldmatrix would read
  c.push_back({"stsm_x1_rows128", "stmatrix.x1", "tx*8", warp, 16, false});
  c.push_back({"stsm_x2_same_rows", "stmatrix.x2", "tx%8", warp, 16, false});
  c.push_back({"stsm_x4_consecutive", "stmatrix.x4", "tx", warp, 16, false});
  c.push_back({"stsm_x4_tile_unpadded", "stmatrix.x4", "(tx%16)*8 + tx/16", warp, 16, false});
  c.push_back({"stsm_x4_tile_padded", "stmatrix.x4", "(tx%16)*9 + tx/16", warp, 16, false});
  c.push_back({"stsm_x4_tile_swizzled", "stmatrix.x4", "(tx%16)*8 + ((tx/16) ^ (tx%8))", warp, 16, false});
  c.push_back({"stsm_x4_trans_tile_swizzled", "stmatrix.x4.trans", "(tx%16)*8 + ((tx/16) ^ (tx%8))", warp, 16, false});
  // cp.async: the shared-memory writes of tile copies, 8 lanes a 128-byte row
  c.push_back({"cp_async_cg_u128_consecutive", "cp.async.cg", "tx", warp, 16, false});
  c.push_back({"cp_async_cg_u128_stride2", "cp.async.cg", "tx*2", warp, 16, false});
  c.push_back({"cp_async_cg_u128_stride8", "cp.async.cg", "tx*8", warp, 16, false});
  c.push_back({"cp_async_cg_u128_quarters_same", "cp.async.cg", "tx%8", warp, 16, false});
  c.push_back({"cp_async_cg_u128_lane_mod4", "cp.async.cg", "tx%4", warp, 16, false});
  c.push_back({"cp_async_cg_u128_tile_padded", "cp.async.cg", "(tx/8)*9 + tx%8", warp, 16, false});
  c.push_back({"cp_async_cg_u128_tile_swizzled", "cp.async.cg", "(tx/8)*8 + ((tx%8) ^ ((tx/8)%8))", warp, 16, false});
  c.push_back({"cp_async_cg_u128_column", "cp.async.cg", "(tx%8)*8*4 + tx/8", warp, 16, false});
  c.push_back({"cp_async_ca_u64_consecutive", "cp.async.ca", "tx", warp, 8, false});
  c.push_back({"cp_async_ca_u64_stride16", "cp.async.ca", "tx*16", warp, 8, false});
  c.push_back({"cp_async_ca_u32_consecutive", "cp.async.ca", "tx", warp, 4, false});
  c.push_back({"cp_async_ca_u32_stride2", "cp.async.ca", "tx*2", warp, 4, false});
  c.push_back({"cp_async_ca_u32_stride32", "cp.async.ca", "tx*32", warp, 4, false});
  c.push_back({"cp_async_ca_u128_consecutive", "cp.async.ca", "tx", warp, 16, false});
  c.push_back({"cp_async_ca_u128_stride2", "cp.async.ca", "tx*2", warp, 16, false});
  c.push_back({"cp_async_ca_u128_stride8", "cp.async.ca", "tx*8", warp, 16, false});
  c.push_back({"cp_async_ca_u128_quarters_same", "cp.async.ca", "tx%8", warp, 16, false});
  c.push_back({"cp_async_ca_u128_tile_swizzled", "cp.async.ca", "(tx/8)*8 + ((tx%8) ^ ((tx/8)%8))", warp, 16, false});
  // written after the rules above were fitted to the rows before, to test them
  c.push_back({"cp_async_cg_u128_shifted", "cp.async.cg", "tx+1", warp, 16, false});
  c.push_back({"cp_async_cg_u128_sector_per_line", "cp.async.cg", "(tx/2)*8 + tx%2", warp, 16, false});
  c.push_back({"cp_async_cg_u128_reversed", "cp.async.cg", "31-tx", warp, 16, false});
  c.push_back({"cp_async_cg_u128_quarters_swapped", "cp.async.cg", "tx^8", warp, 16, false});
  c.push_back({"ldsm_x4_rows80", "ldmatrix.x4", "tx*5", warp, 16, false});
  c.push_back({"stsm_x2_rows64", "stmatrix.x2", "tx*4", warp, 16, false});
  c.push_back({"cp_async_cg_u128_tile_swizzled_4warps", "cp.async.cg", "(tx/8)*8 + ((tx%8) ^ ((tx/8)%8))", {128, 1, 1}, 16, false});
  // TMA's swizzle modes: ldmatrix.x4 reading chunk l / 16 of row l % 16 of a tile whose rows are
  // as wide as the swizzle span (32, 64 or 128 bytes), without the swizzle and with it
  c.push_back({"ldsm_x4_rows32", "ldmatrix.x4", "(tx%16)*2 + tx/16", warp, 16, false});
  c.push_back({"ldsm_x4_rows32_swizzle32", "ldmatrix.x4", "(tx%16)*2 + tx/16", warp, 16, false, 32});
  c.push_back({"ldsm_x4_rows64", "ldmatrix.x4", "(tx%16)*4 + tx/16", warp, 16, false});
  c.push_back({"ldsm_x4_rows64_swizzle64", "ldmatrix.x4", "(tx%16)*4 + tx/16", warp, 16, false, 64});
  c.push_back({"ldsm_x4_rows128_swizzle128", "ldmatrix.x4", "(tx%16)*8 + tx/16", warp, 16, false, 128});
  c.push_back({"ldsm_x4_trans_rows128_swizzle128", "ldmatrix.x4.trans", "(tx%16)*8 + tx/16", warp, 16, false, 128});
  // the TMA-store epilogue: a warpgroup's 8-byte writes of wgmma accumulators (row 16 w + l / 4,
  // columns 2 (l % 4) and the next) into 128-byte rows, unswizzled and swizzled, and into 32-byte rows
  c.push_back({"st_u64_accumulators_rows128", "st", "(((tx/32)%4)*16 + (tx%32)/4)*16 + tx%4", {128, 1, 1}, 8, false});
  c.push_back({"st_u64_accumulators_rows128_swizzle128", "st", "(((tx/32)%4)*16 + (tx%32)/4)*16 + tx%4", {128, 1, 1}, 8,
               false, 128});
  c.push_back({"st_u64_accumulators_rows32", "st", "(((tx/32)%4)*16 + (tx%32)/4)*4 + tx%4", {128, 1, 1}, 8, false});
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

using smemlab::banks::Instruction;
using smemlab::banks::Op;

__device__ int thread_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

// Thread 0 reads shared memory back after a barrier, so that the writes are not removed. Its
// load is counted with the loads, apart from the writes measured.
__device__ void keep_writes(const unsigned char* smem, unsigned int* out) {
  __syncthreads();
  if (thread_rank() == 0) out[0] = smem[0];
}

// One shared-memory access per thread at its byte offset: a load (kept alive through `out`) or
// a store.
template <int W>
__global__ void probe_kernel(const long long* offsets, bool store, unsigned int* out) {
  using T = typename Word<W>::type;
  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = thread_rank();
  T* p = reinterpret_cast<T*>(smem + offsets[tid]);
  if (store) {
    *p = make_value<T>(tid);
    keep_writes(smem, out);
  } else {
    out[tid] = fold(*p);
  }
}

// One ldmatrix or stmatrix of N matrices per warp, every lane giving its row address.
template <int N, bool Trans, bool Store>
__global__ void matrix_probe_kernel(const long long* offsets, unsigned int* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = thread_rank();
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(smem + offsets[tid]));
  unsigned r[4] = {static_cast<unsigned>(tid), 1u, 2u, 3u};
#define SMEMLAB_LDSM(SUFFIX)                                                                         \
  if constexpr (N == 1)                                                                              \
    asm volatile("ldmatrix.sync.aligned.m8n8.x1" SUFFIX ".shared.b16 {%0}, [%1];\n" : "=r"(r[0]) : "r"(address)); \
  else if constexpr (N == 2)                                                                         \
    asm volatile("ldmatrix.sync.aligned.m8n8.x2" SUFFIX ".shared.b16 {%0, %1}, [%2];\n"              \
                 : "=r"(r[0]), "=r"(r[1]) : "r"(address));                                           \
  else                                                                                               \
    asm volatile("ldmatrix.sync.aligned.m8n8.x4" SUFFIX ".shared.b16 {%0, %1, %2, %3}, [%4];\n"      \
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(address));
#define SMEMLAB_STSM(SUFFIX)                                                                         \
  if constexpr (N == 1)                                                                              \
    asm volatile("stmatrix.sync.aligned.m8n8.x1" SUFFIX ".shared.b16 [%0], {%1};\n" ::"r"(address), "r"(r[0]) : "memory"); \
  else if constexpr (N == 2)                                                                         \
    asm volatile("stmatrix.sync.aligned.m8n8.x2" SUFFIX ".shared.b16 [%0], {%1, %2};\n" ::"r"(address), "r"(r[0]), \
                 "r"(r[1]) : "memory");                                                              \
  else                                                                                               \
    asm volatile("stmatrix.sync.aligned.m8n8.x4" SUFFIX ".shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(address),   \
                 "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");
  if constexpr (Store) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // stmatrix: compute capability 9.0
    if constexpr (Trans) {
      SMEMLAB_STSM(".trans")
    } else {
      SMEMLAB_STSM("")
    }
#else
    __trap();
#endif
    keep_writes(smem, out);
  } else {
    if constexpr (Trans) {
      SMEMLAB_LDSM(".trans")
    } else {
      SMEMLAB_LDSM("")
    }
    out[tid] = r[0] ^ r[1] ^ r[2] ^ r[3];
  }
#undef SMEMLAB_LDSM
#undef SMEMLAB_STSM
}

// One cp.async of W bytes per thread, from consecutive global words to its shared offset;
// Bypass: .cg (16 bytes, not cached in L1), else .ca.
template <int W, bool Bypass>
__global__ void cp_async_probe_kernel(const long long* offsets, const uint4* source, unsigned int* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int tid = thread_rank();
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(smem + offsets[tid]));
  const auto* from = reinterpret_cast<const unsigned char*>(source) + static_cast<std::size_t>(tid) * W;
  if constexpr (Bypass)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(from) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(address), "l"(from), "n"(W) : "memory");
  asm volatile("cp.async.wait_all;\n" ::: "memory");
  keep_writes(smem, out);
}

template <class Kernel, class... Args>
void launch(Kernel kernel, dim3 block, std::size_t smem, Args... args) {
  SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  kernel<<<1, block, smem>>>(args...);
  SMEMLAB_LAUNCH_CHECK();
}

template <int N>
void launch_matrix(const Instruction& in, const long long* offsets, unsigned int* out, dim3 block, std::size_t smem) {
  const bool store = in.op == Op::stmatrix;
  if (store && in.trans) launch(matrix_probe_kernel<N, true, true>, block, smem, offsets, out);
  else if (store) launch(matrix_probe_kernel<N, false, true>, block, smem, offsets, out);
  else if (in.trans) launch(matrix_probe_kernel<N, true, false>, block, smem, offsets, out);
  else launch(matrix_probe_kernel<N, false, false>, block, smem, offsets, out);
}

std::vector<long long> offsets_of(const Pattern& p) {
  const Access a{Expression::parse(p.expression), p.block, p.width, p.bytes, 0, smemlab::banks::parse_instruction(p.op),
                 p.swizzle};
  smemlab::banks::validate(a);
  std::vector<long long> out;
  for (int z = 0; z < p.block.z; ++z)
    for (int y = 0; y < p.block.y; ++y)
      for (int x = 0; x < p.block.x; ++x) {
        const long long v = a.expression.eval(x, y, z);
        out.push_back(smemlab::banks::swizzled(p.bytes ? v : v * p.width, p.swizzle));
      }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto patterns = catalogue();
    if (argc > 1 && std::strcmp(argv[1], "--list") == 0) {
      std::printf("name,op,expression,block,width,bytes,swizzle\n");
      for (const auto& p : patterns)
        std::printf("%s,%s,\"%s\",%dx%dx%d,%d,%d,%d\n", p.name.c_str(), p.op.c_str(), p.expression.c_str(),
                    p.block.x, p.block.y, p.block.z, p.width, p.bytes ? 1 : 0, p.swizzle);
      return 0;
    }
    smemlab::DeviceBuffer<unsigned int> out(1024);
    smemlab::DeviceBuffer<uint4> source(1024);  // what cp.async copies: its contents do not matter
    SMEMLAB_CUDA_CHECK(cudaMemset(source.data(), 0, source.size() * sizeof(uint4)));
    for (const auto& p : patterns) {
      const auto offsets = offsets_of(p);
      long long top = 0;
      for (const long long o : offsets) top = std::max(top, o);
      smemlab::DeviceBuffer<long long> d_offsets(offsets.size());
      d_offsets.upload(offsets, nullptr);
      const dim3 block(p.block.x, p.block.y, p.block.z);
      const std::size_t smem = static_cast<std::size_t>(top) + 16;
      const Instruction in = smemlab::banks::parse_instruction(p.op);
      const long long* o = d_offsets.data();
      unsigned int* r = out.data();
      if (in.matrix()) {
        if (in.matrices == 1) launch_matrix<1>(in, o, r, block, smem);
        else if (in.matrices == 2) launch_matrix<2>(in, o, r, block, smem);
        else launch_matrix<4>(in, o, r, block, smem);
      } else if (in.op == Op::cp_async_cg) {
        launch(cp_async_probe_kernel<16, true>, block, smem, o, source.data(), r);
      } else if (in.op == Op::cp_async_ca) {
        if (p.width == 4) launch(cp_async_probe_kernel<4, false>, block, smem, o, source.data(), r);
        else if (p.width == 8) launch(cp_async_probe_kernel<8, false>, block, smem, o, source.data(), r);
        else launch(cp_async_probe_kernel<16, false>, block, smem, o, source.data(), r);
      } else {
        const bool store = in.op == Op::store;
        switch (p.width) {
          case 1: launch(probe_kernel<1>, block, smem, o, store, r); break;
          case 2: launch(probe_kernel<2>, block, smem, o, store, r); break;
          case 4: launch(probe_kernel<4>, block, smem, o, store, r); break;
          case 8: launch(probe_kernel<8>, block, smem, o, store, r); break;
          default: launch(probe_kernel<16>, block, smem, o, store, r); break;
        }
      }
      SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "smemlab_bank_probe: %s\n", e.what());
    return 1;
  }
}
