#pragma once
// The TMA + wgmma GEMM of the Hopper steps, written once and configured by a policy.
// - Copies: the copy engine (TMA) moves each K-step's tiles of A (BM rows x 128 bytes) and B
//   (64 rows of K x BN columns, in 64-column blocks; tf32: BN rows of B's transpose x 128 bytes
//   of K) into a ring of shared stages, swizzled by 128 bytes, zero-filling whatever lies past the matrices' edges; an mbarrier per stage
//   counts the bytes that landed. No thread computes a copy address or a bound.
// - Math: each consumer warpgroup issues wgmma on its 64-row slices of A's tile and all of
//   B's, reading both from shared memory through descriptors; the accumulators stay in
//   registers until the epilogue.
// - Without specialisation (step 07) one warpgroup does both: its first thread refills a stage
//   once the whole block has finished reading it. With it (step 08) a producer warpgroup only
//   issues copies, a full/empty pair of mbarriers per stage hands the stages back and forth,
//   and setmaxnreg moves the producer's registers to the consumers.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "smemlab/error.hpp"
#include "tensor_matmul/hopper.cuh"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tensor_map.hpp"

namespace smemlab::tensor_matmul::detail {

template <int Consumers, int MTiles, int BN, int Stages, bool Specialized, bool Persistent = false>
struct WgmmaConfig {
  static constexpr int kConsumers = Consumers;  // warpgroups issuing wgmma
  static constexpr int kMTiles = MTiles;        // 64-row slices of A per consumer
  static constexpr int kBM = 64 * MTiles * Consumers;
  static constexpr int kBN = BN;
  template <class E>
  static constexpr int kBK = 128 / kElemBytes<E>;  // elements of K per stage: one 128-byte swizzle row
  static constexpr int kStages = Stages;
  static constexpr bool kSpecialized = Specialized;
  // One block per SM walks the tiles (in raster order, a grid's width apart): the producer
  // copies the next tile's first stages while the consumers store this one's.
  static constexpr bool kPersistent = Persistent;
  static constexpr int kThreads = 128 * (Consumers + (Specialized ? 1 : 0));
  static constexpr int kABytes = kBM * 128;
  static constexpr int kBBlockBytes = 64 * 128;  // 2-byte types: 64 rows of K x 64 columns
  static constexpr int kStageBytes = kABytes + BN * 128;  // B: 128 bytes of K for each column
  // The stages, 1024 bytes of slack to align them for the swizzle, and the barriers.
  static constexpr std::size_t kSmemBytes = static_cast<std::size_t>(kStageBytes) * Stages + 1024 + 16 * Stages;
  static_assert(kBM <= 256 && BN % 64 == 0 && (BN == 128 || BN == 256));
  static_assert(Specialized || !Persistent, "a persistent block needs a producer running ahead");
};

template <class Cfg, class E>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, GemmArgs g,
                      int group, bool c_pairs) {
  using namespace hopper;
  extern __shared__ __align__(1024) char smem_raw[];
  char* smem = smem_raw + ((1024 - shared_address(smem_raw) % 1024) % 1024);
  auto* full = reinterpret_cast<std::uint64_t*>(smem + Cfg::kStages * Cfg::kStageBytes);
  auto* empty = full + Cfg::kStages;
  const int tiles = ((g.m + Cfg::kBM - 1) / Cfg::kBM) * ((g.n + Cfg::kBN - 1) / Cfg::kBN);
  constexpr int kBK = Cfg::template kBK<E>;
  const int steps = (g.k + kBK - 1) / kBK;
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    for (int s = 0; s < Cfg::kStages; ++s) {
      barrier_init(&full[s], 1);
      barrier_init(&empty[s], Cfg::kConsumers);
    }
    barrier_init_fence();
  }
  __syncthreads();
  const auto tile_at = [&](int index) {
    return smemlab::detail::rastered_tile_at(index, g.m, g.n, Cfg::kBM, Cfg::kBN, group);
  };

  // K-steps are numbered across the block's tiles: step `it` uses stage it % Stages, in that
  // stage's (it / Stages)-th phase.
  const auto issue = [&](const TileOrigin& t, int step, int it) {
    const int s = it % Cfg::kStages;
    char* a_tile = smem + s * Cfg::kStageBytes;
    char* b_tile = a_tile + Cfg::kABytes;
    arrive_expect_bytes(&full[s], Cfg::kStageBytes);
    tma_load(a_tile, a_map, step * kBK, t.row0, &full[s]);
    if constexpr (kIsTf32<E>) {
      tma_load(b_tile, b_map, step * kBK, t.col0, &full[s]);
    } else {
#pragma unroll
      for (int j = 0; j < Cfg::kBN / 64; ++j)
        tma_load(b_tile + j * Cfg::kBBlockBytes, b_map, t.col0 + 64 * j, step * kBK, &full[s]);
    }
  };

  if constexpr (Cfg::kSpecialized) {
    if (tid < 128) {  // the producer warpgroup: one thread issues every copy
      release_registers<40>();
      if (tid == 0) {
        int it = 0;
        for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
          const TileOrigin t = tile_at(tile);
          for (int step = 0; step < steps; ++step, ++it) {
            if (it >= Cfg::kStages) wait(&empty[it % Cfg::kStages], (it / Cfg::kStages - 1) & 1);
            issue(t, step, it);
          }
        }
      }
      return;
    }
    claim_registers<232>();
  }

  const int consumer = Cfg::kSpecialized ? tid / 128 - 1 : 0;
  const int ct = tid % 128;
  const int warp = ct / 32;
  const int lane = ct % 32;
  int it = 0;
  for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
    const TileOrigin t = tile_at(tile);
    if constexpr (!Cfg::kSpecialized) {
      if (tid == 0)
        for (int step = 0; step < min(Cfg::kStages, steps); ++step) issue(t, step, it + step);
    }
    float acc[Cfg::kMTiles][Cfg::kBN / 2] = {};
    for (int step = 0; step < steps; ++step, ++it) {
      const int s = it % Cfg::kStages;
      wait(&full[s], (it / Cfg::kStages) & 1);
      const char* a_tile = smem + s * Cfg::kStageBytes + consumer * Cfg::kMTiles * 64 * 128;
      const char* b_tile = smem + s * Cfg::kStageBytes + Cfg::kABytes;
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
      fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {  // 32 bytes of K each
        const std::uint64_t b = kIsTf32<E> ? descriptor(b_tile + kk * 32, 16, 1024)
                                           : descriptor(b_tile + kk * 2048, Cfg::kBBlockBytes, 1024);
#pragma unroll
        for (int i = 0; i < Cfg::kMTiles; ++i)
          hopper::Wgmma<Cfg::kBN, E>::mma(acc[i], descriptor(a_tile + i * 64 * 128 + kk * 32, 16, 1024), b);
      }
      commit();
      if constexpr (Cfg::kSpecialized) {
        wait_batches<1>();  // the previous step's batch is done: its stage goes back to the producer
        if (step > 0 && ct == 0) arrive(&empty[(it - 1) % Cfg::kStages]);
      } else {
        wait_batches<0>();
        __syncthreads();  // every warp has finished reading stage s
        if (tid == 0 && step + Cfg::kStages < steps) issue(t, step + Cfg::kStages, it + Cfg::kStages);
      }
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
    }
    wait_batches<0>();
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
    if constexpr (Cfg::kSpecialized) {
      if (ct == 0) arrive(&empty[(it - 1) % Cfg::kStages]);  // the tile's last stage
    }

    const auto store_all = [&](auto checked, auto pairs) {
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kBN / 8; ++j) {
          const int r = t.row0 + (consumer * Cfg::kMTiles + i) * 64 + warp * 16 + lane / 4;
          const int c = t.col0 + j * 8 + lane % 4 * 2;
          store_c2<decltype(checked)::value, decltype(pairs)::value>(g, r, c, acc[i][4 * j], acc[i][4 * j + 1]);
          store_c2<decltype(checked)::value, decltype(pairs)::value>(g, r + 8, c, acc[i][4 * j + 2],
                                                                     acc[i][4 * j + 3]);
        }
    };
    store_tile(t.edge, c_pairs, store_all);
  }
}

// SMs of the current device, for persistent grids.
inline int device_sms() {
  int device = 0;
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

template <class Cfg, class E>
void launch_wgmma_with(const GemmArgs& g, cudaStream_t stream, int group) {
  static const bool sized = [] {
    SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(wgmma_gemm_kernel<Cfg, E>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(Cfg::kSmemBytes)));
    return true;
  }();
  (void)sized;
  constexpr int kBK = Cfg::template kBK<E>;
  const CUtensorMap a_map = swizzled_tensor_map(g.a, g.input, g.m, g.k, g.lda, Cfg::kBM, kBK);
  // tf32: g.b is B's transpose, N x K.
  const CUtensorMap b_map = kIsTf32<E> ? swizzled_tensor_map(g.b, g.input, g.n, g.k, g.ldb, Cfg::kBN, kBK)
                                       : swizzled_tensor_map(g.b, g.input, g.k, g.n, g.ldb, kBK, 64);
  const long long tiles = static_cast<long long>((g.m + Cfg::kBM - 1) / Cfg::kBM) * ((g.n + Cfg::kBN - 1) / Cfg::kBN);
  if (tiles > 0x7FFFFFFFLL) throw std::invalid_argument("gemm: C has more tiles than a grid holds");
  const long long blocks = Cfg::kPersistent ? std::min<long long>(tiles, device_sms()) : tiles;
  wgmma_gemm_kernel<Cfg, E>
      <<<static_cast<unsigned>(blocks), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(a_map, b_map, g, group, c_pairs_aligned(g));
  SMEMLAB_LAUNCH_CHECK();
}

// Operands TMA cannot read (rows not 16-byte aligned) are repacked first; tf32 reads B's
// transpose.
template <class Cfg>
void launch_wgmma(const GemmArgs& args, const LaunchContext& ctx, int group) {
  const AlignedOperands aligned(args, ctx, args.input == DType::tf32 ? BOperand::transposed : BOperand::row_major);
  with_input_type(args.input, [&](auto e) { launch_wgmma_with<Cfg, decltype(e)>(aligned.args(), ctx.stream, group); });
}

}  // namespace smemlab::tensor_matmul::detail
