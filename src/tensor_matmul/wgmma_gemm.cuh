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
// - Epilogue: each consumer stores its accumulators to C from registers, or (step 10 on)
//   writes them into staging buffers in shared memory (boxes of 32-byte rows) from which TMA
//   stores them.
// - Clusters (step 11): blocks in pairs on tiles one above the other share B's tile; each copies
//   half of it into both blocks' shared memory with one multicast TMA copy.
// - Split-K (step 12): a work item is a tile and one of `count` ranges of its K-steps; each
//   writes its partial sums to the workspace, and a second kernel adds them in range order.
// - Swapped (step 14, tf32 only): the block computes a tile of C's transpose, B^T A^T, so that
//   B is read as the caller stores it, row-major. wgmma takes tf32 from shared memory K-major
//   only, which B is not; but its A operand may come from registers, loaded in any order. So
//   B's tile (copied as 32 x 32 boxes: 32 rows of K by 128 bytes of N) is wgmma's A, read
//   into registers, and A's tile, K-major as stored, is wgmma's B. The tile's rows run along
//   C's columns; the epilogue stores each accumulator at its transposed place in C.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "core/per_device.hpp"
#include "smemlab/error.hpp"
#include "tensor_matmul/hopper.cuh"
#include "tensor_matmul/partial_sums.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tensor_map.hpp"

namespace smemlab::tensor_matmul::detail {

template <int Consumers, int MTiles, int BN, int Stages, bool Specialized, bool Persistent = false,
          bool TmaStore = false, int ClusterM = 1, bool Swapped = false>
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
  // The epilogue through shared memory: a consumer writes 64 rows x 32 floats into one of its
  // two staging buffers and TMA stores them, while it writes the next 32 columns into the other.
  static constexpr bool kTmaStore = TmaStore;
  static constexpr int kStagingBytes = 64 * 128;
  static constexpr int kStagingTotal = TmaStore ? 2 * kStagingBytes * Consumers : 0;
  // Blocks per cluster, on tiles one above the other: they share B's tile, each copying
  // 1 / ClusterM of it into every block of the cluster (TMA multicast).
  static constexpr int kClusterM = ClusterM;
  // The tile is C's transpose's (tf32, B read row-major from registers); kBM runs along N.
  static constexpr bool kSwapped = Swapped;
  static constexpr int kThreads = 128 * (Consumers + (Specialized ? 1 : 0));
  static constexpr int kABytes = kBM * 128;
  static constexpr int kBBlockBytes = 64 * 128;  // 2-byte types: 64 rows of K x 64 columns
  static constexpr int kStageBytes = kABytes + BN * 128;  // B: 128 bytes of K for each column
  // The stages, the staging buffers, 1024 bytes of slack to align them for the swizzle, and the
  // barriers.
  static constexpr std::size_t kSmemBytes =
      static_cast<std::size_t>(kStageBytes) * Stages + kStagingTotal + 1024 + 16 * Stages;
  static_assert(kBM <= 256 && BN % 64 == 0 && (BN == 128 || BN == 256));
  static_assert(Specialized || !Persistent, "a persistent block needs a producer running ahead");
  static_assert(ClusterM == 1 || (ClusterM == 2 && Persistent), "clusters of two, on the persistent kernel");
  static_assert(!Swapped || (ClusterM == 1 && !TmaStore), "the swapped tile stores from registers, unclustered");
};

// K's steps in `count` ranges of `steps_per_split` (the last may be shorter, none is empty).
// With count > 1, the item of range r stores its tile's partial sums (alpha 1, beta 0) at
// partials + r * m * n, rows of n floats, for sum_partials.
struct KSplit {
  int count = 1;
  int steps_per_split = 0;
  float* partials = nullptr;
};

// Swapped tiles: one K-step of a consumer's slices, wgmma's A operand (B's tile, 32 x 32 boxes
// of 128-byte rows of N, 128-byte swizzled) read into `fragments`, then four k8 wgmma each. The
// caller has waited for the batch that last read the registers.
// A thread's rows of the slice lie in one box, 8 columns apart; row k of a box holds column
// chunk c (4 floats) at chunk c ^ (k % 8). Two lanes share each bank: 2 wavefronts a load.
template <class Cfg, class Acc>
__device__ __forceinline__ void multiply_from_registers(Acc& acc, unsigned (&fragments)[Cfg::kMTiles][4][4],
                                                        const char* stage, int consumer, int warp, int lane) {
  using namespace hopper;
  const char* b_of_a = stage + Cfg::kABytes;  // A's tile, K-major: wgmma's B operand
  const int quarter = lane % 4;               // A's column (K) of the fragment, and 4 to the right
#pragma unroll
  for (int i = 0; i < Cfg::kMTiles; ++i) {
    const int row = (consumer * Cfg::kMTiles + i) * 64 + warp * 16 + lane / 4;  // along N
    const char* box = stage + row / 32 * 4096 + row % 4 * 4;
    const int chunk = row % 32 / 4;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int k = kk * 8 + quarter + 4 * half;  // k % 8 == quarter + 4 * half
        const char* line = box + k * 128;
        fragments[i][kk][2 * half] = *reinterpret_cast<const unsigned*>(line + ((chunk ^ (k % 8)) << 4));
        fragments[i][kk][2 * half + 1] = *reinterpret_cast<const unsigned*>(line + (((chunk + 2) ^ (k % 8)) << 4));
      }
  }
  fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i)
      WgmmaRegisterA<Cfg::kBN>::mma(acc[i], fragments[i][kk], descriptor(b_of_a + kk * 32, 16, 1024));
}

template <class Cfg, class E>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                      const __grid_constant__ CUtensorMap c_map, GemmArgs g, int group, bool c_pairs, bool c_by_tma,
                      KSplit split) {
  using namespace hopper;
  extern __shared__ __align__(1024) char smem_raw[];
  char* smem = smem_raw + ((1024 - shared_address(smem_raw) % 1024) % 1024);
  char* staging = smem + Cfg::kStages * Cfg::kStageBytes;
  auto* full = reinterpret_cast<std::uint64_t*>(staging + Cfg::kStagingTotal);
  auto* empty = full + Cfg::kStages;
  // Work items: tiles, or with clusters column-aligned groups of kClusterM tiles, each once per
  // range of K.
  constexpr int kCluster = Cfg::kClusterM;
  const int rows = Cfg::kSwapped ? g.n : g.m;  // of the matrix the block's tiles cover
  const int cols = Cfg::kSwapped ? g.m : g.n;
  const int tiles = ((rows + Cfg::kBM * kCluster - 1) / (Cfg::kBM * kCluster)) * ((cols + Cfg::kBN - 1) / Cfg::kBN);
  const int items = tiles * split.count;
  const int first_item = static_cast<int>(blockIdx.x) / kCluster;
  const int item_stride = static_cast<int>(gridDim.x) / kCluster;
  const unsigned rank = kCluster > 1 ? cluster_rank() : 0;
  constexpr int kBK = Cfg::template kBK<E>;
  const int all_steps = (g.k + kBK - 1) / kBK;
  const int tid = static_cast<int>(threadIdx.x);
  if (tid == 0) {
    for (int s = 0; s < Cfg::kStages; ++s) {
      barrier_init(&full[s], 1);
      barrier_init(&empty[s], Cfg::kConsumers * kCluster);  // every consumer of the cluster
    }
    barrier_init_fence();
  }
  if constexpr (kCluster > 1) {
    cluster_sync();  // the other block's barriers exist before anything arrives on them
  } else {
    __syncthreads();
  }
  const auto tile_at = [&](int item) {
    if constexpr (kCluster == 1) {
      return smemlab::detail::rastered_tile_at(item % tiles, rows, cols, Cfg::kBM, Cfg::kBN, group);
    } else {
      const TileOrigin pair = smemlab::detail::rastered_tile_at(item, g.m, g.n, Cfg::kBM * kCluster, Cfg::kBN, group);
      const int row0 = pair.row0 + static_cast<int>(rank) * Cfg::kBM;
      return TileOrigin{row0, pair.col0, row0 + Cfg::kBM > g.m || pair.col0 + Cfg::kBN > g.n};
    }
  };

  // K-steps are numbered across the block's tiles: step `it` uses stage it % Stages, in that
  // stage's (it / Stages)-th phase.
  const auto issue = [&](const TileOrigin& t, int step, int it) {
    const int s = it % Cfg::kStages;
    char* a_tile = smem + s * Cfg::kStageBytes;
    char* b_tile = a_tile + Cfg::kABytes;
    arrive_expect_bytes(&full[s], Cfg::kStageBytes);
    if constexpr (Cfg::kSwapped) {  // B's tile: 32 x 32 boxes, 32 rows of K by 32 columns
#pragma unroll
      for (int j = 0; j < Cfg::kBM / 32; ++j) tma_load(a_tile + j * 4096, a_map, t.row0 + 32 * j, step * kBK, &full[s]);
    } else {
      tma_load(a_tile, a_map, step * kBK, t.row0, &full[s]);
    }
    if constexpr (kCluster > 1) {
      // This block's share of B, written into every block of the cluster.
      constexpr int kShare = Cfg::kBN / kCluster;
      constexpr auto kAll = static_cast<std::uint16_t>((1U << kCluster) - 1);
      const int first = static_cast<int>(rank) * kShare;
      if constexpr (kIsTf32<E>) {
        tma_load_multicast(b_tile + first * 128, b_map, step * kBK, t.col0 + first, &full[s], kAll);
      } else {
#pragma unroll
        for (int j = 0; j < kShare / 64; ++j)
          tma_load_multicast(b_tile + (first / 64 + j) * Cfg::kBBlockBytes, b_map, t.col0 + first + 64 * j,
                             step * kBK, &full[s], kAll);
      }
    } else if constexpr (kIsTf32<E>) {
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
        for (int item = first_item; item < items; item += item_stride) {
          const TileOrigin t = tile_at(item);
          const int first = item / tiles * split.steps_per_split;
          const int end = min(first + split.steps_per_split, all_steps);
          for (int step = first; step < end; ++step, ++it) {
            if (it >= Cfg::kStages) {
              wait<(kCluster > 1)>(&empty[it % Cfg::kStages], (it / Cfg::kStages - 1) & 1);
            }
            issue(t, step, it);
          }
        }
      }
      if constexpr (kCluster > 1) {
        __syncwarp();    // the copying thread's warp converges first
        cluster_sync();  // matches the consumers' below
      }
      return;
    }
    claim_registers<232>();
  }
  // A consumer is done with a stage: it goes back to every producer that writes into it.
  const auto release = [&](int stage) {
    if constexpr (kCluster > 1) {
#pragma unroll
      for (unsigned r = 0; r < kCluster; ++r) arrive_in_block(&empty[stage], r);
    } else {
      arrive(&empty[stage]);
    }
  };

  const int consumer = Cfg::kSpecialized ? tid / 128 - 1 : 0;
  const int ct = tid % 128;
  const int warp = ct / 32;
  const int lane = ct % 32;
  // Swapped: wgmma's A operand in registers, written only while no batch reads them.
  unsigned fragments[Cfg::kMTiles][4][4];
  int it = 0;
  for (int item = first_item; item < items; item += item_stride) {
    const TileOrigin t = tile_at(item);
    const int first = item / tiles * split.steps_per_split;
    const int steps = min(split.steps_per_split, all_steps - first);
    if constexpr (!Cfg::kSpecialized) {
      if (tid == 0)
        for (int step = 0; step < min(Cfg::kStages, steps); ++step) issue(t, first + step, it + step);
    }
    float acc[Cfg::kMTiles][Cfg::kBN / 2] = {};
    for (int step = 0; step < steps; ++step, ++it) {
      const int s = it % Cfg::kStages;
      wait(&full[s], (it / Cfg::kStages) & 1);
      const char* a_tile = smem + s * Cfg::kStageBytes + consumer * Cfg::kMTiles * 64 * 128;
      const char* b_tile = smem + s * Cfg::kStageBytes + Cfg::kABytes;
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
      if constexpr (Cfg::kSwapped) {
        // The previous step's batch reads the registers about to be loaded: it ends first. The
        // other consumer's batches keep the tensor cores busy meanwhile.
        wait_batches<0>();
        multiply_from_registers<Cfg>(acc, fragments, smem + s * Cfg::kStageBytes, consumer, warp, lane);
      } else {
        fence();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {  // 32 bytes of K each
          const std::uint64_t b = kIsTf32<E> ? descriptor(b_tile + kk * 32, 16, 1024)
                                             : descriptor(b_tile + kk * 2048, Cfg::kBBlockBytes, 1024);
#pragma unroll
          for (int i = 0; i < Cfg::kMTiles; ++i)
            hopper::Wgmma<Cfg::kBN, E>::mma(acc[i], descriptor(a_tile + i * 64 * 128 + kk * 32, 16, 1024), b);
        }
      }
      commit();
      if constexpr (Cfg::kSpecialized) {
        wait_batches<1>();  // the previous step's batch is done: its stage goes back to the producer
        if (step > 0 && ct == 0) release((it - 1) % Cfg::kStages);
      } else {
        wait_batches<0>();
        __syncthreads();  // every warp has finished reading stage s
        if (tid == 0 && step + Cfg::kStages < steps) issue(t, first + step + Cfg::kStages, it + Cfg::kStages);
      }
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
    }
    wait_batches<0>();
#pragma unroll
    for (int i = 0; i < Cfg::kMTiles; ++i) keep_in_registers(acc[i]);
    if constexpr (Cfg::kSpecialized) {
      if (ct == 0) release((it - 1) % Cfg::kStages);  // the tile's last stage
    }

    // A range of K's partial sums go to the workspace, whole, for sum_partials.
    GemmArgs out = g;
    if (split.count > 1) {
      out.c = split.partials + static_cast<std::size_t>(item / tiles) * g.m * g.n;
      out.ldc = g.n;
      out.alpha = 1.0F;
      out.beta = 0.0F;
    }
    const auto store_all = [&](auto checked, auto pairs) {
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kBN / 8; ++j) {
          const int r = t.row0 + (consumer * Cfg::kMTiles + i) * 64 + warp * 16 + lane / 4;
          const int c = t.col0 + j * 8 + lane % 4 * 2;
          if constexpr (Cfg::kSwapped) {  // (r, c) of C's transpose is C's (c, r)
            constexpr bool kChecked = decltype(checked)::value;
            store_c<kChecked>(out, c, r, acc[i][4 * j]);
            store_c<kChecked>(out, c + 1, r, acc[i][4 * j + 1]);
            store_c<kChecked>(out, c, r + 8, acc[i][4 * j + 2]);
            store_c<kChecked>(out, c + 1, r + 8, acc[i][4 * j + 3]);
          } else {
            store_c2<decltype(checked)::value, decltype(pairs)::value>(out, r, c, acc[i][4 * j], acc[i][4 * j + 1]);
            store_c2<decltype(checked)::value, decltype(pairs)::value>(out, r + 8, c, acc[i][4 * j + 2],
                                                                       acc[i][4 * j + 3]);
          }
        }
    };
    if (!(Cfg::kTmaStore && c_by_tma)) {
      // Swapped tiles store single floats: no paired version to compile.
      store_tile(t.edge, !Cfg::kSwapped && (split.count > 1 ? g.n % 2 == 0 : c_pairs), store_all);
      continue;
    }
    if constexpr (Cfg::kTmaStore) {
      // Thread (warp w, lane l) holds rows 16 w + l / 4 (and 8 below) and, of every 8 columns,
      // 2 (l % 4) and the next. A buffer holds 32 columns as four 64 x 8 boxes of 32-byte rows,
      // so a half-warp's 8-byte writes cover 4 rows = 128 bytes, each bank once: 2 wavefronts a
      // write, the fewest. (In 128-byte rows they would need 8, and 4 with the 128-byte swizzle,
      // which leaves rows r and r ^ 1 on the same banks.) TMA clips the boxes at C's edges.
      char* const own = staging + consumer * 2 * Cfg::kStagingBytes;
      constexpr int kBoxBytes = 64 * 32;
#pragma unroll
      for (int i = 0; i < Cfg::kMTiles; ++i)
#pragma unroll
        for (int chunk = 0; chunk < Cfg::kBN / 32; ++chunk) {
          char* const buffer = own + chunk % 2 * Cfg::kStagingBytes;
          if (ct == 0) wait_store_reads<1>();  // the stores two chunks back have read this buffer
          sync_named(1 + consumer, 128);
#pragma unroll
          for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const int r = warp * 16 + lane / 4 + 8 * h;
              const int a = 4 * (chunk * 4 + q) + 2 * h;
              *reinterpret_cast<float2*>(buffer + q * kBoxBytes + r * 32 + lane % 4 * 8) =
                  float2{g.alpha * acc[i][a], g.alpha * acc[i][a + 1]};
            }
          fence_shared_for_copies();
          sync_named(1 + consumer, 128);
          if (ct == 0) {
            const int row = t.row0 + (consumer * Cfg::kMTiles + i) * 64;
#pragma unroll
            for (int q = 0; q < 4; ++q) tma_store(c_map, t.col0 + chunk * 32 + q * 8, row, buffer + q * kBoxBytes);
            store_commit();
          }
        }
    }
  }
  if constexpr (Cfg::kTmaStore) {
    if (ct == 0) wait_stores<0>();  // the staging buffers live as long as the block
  }
  // No block leaves while another of its cluster may still arrive on its barriers.
  if constexpr (kCluster > 1) cluster_sync();
}

// SMs of the current device, for persistent grids.
inline int device_sms() {
  int device = 0;
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// A launch of `blocks` blocks of the kernel in clusters of Cfg::kClusterM along x. Not copyable:
// the configuration points at its own attribute.
template <class Cfg>
struct ClusterLaunch {
  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config{};
  ClusterLaunch(unsigned blocks, cudaStream_t stream) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim = {static_cast<unsigned>(Cfg::kClusterM), 1, 1};
    config.attrs = &cluster;
    config.numAttrs = 1;
    config.blockDim = dim3(Cfg::kThreads);
    config.gridDim = dim3(blocks);
    config.dynamicSmemBytes = Cfg::kSmemBytes;
    config.stream = stream;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// The kernel, allowed its shared memory (more than the default 48 KiB): before its first launch
// and before any occupancy query, which counts with the allowance.
template <class Cfg, class E>
void allow_shared_memory() {
  smemlab::detail::allow_dynamic_smem(wgmma_gemm_kernel<Cfg, E>, Cfg::kSmemBytes);
}

// Clusters of Cfg::kClusterM blocks of the kernel that can be resident at once: fewer than
// SMs / kClusterM where a GPU's SMs do not pair up within its processing clusters.
template <class Cfg, class E>
int resident_clusters() {
  allow_shared_memory<Cfg, E>();
  static smemlab::detail::PerDevice<int> clusters;
  return clusters.get([] {
    const ClusterLaunch<Cfg> one(Cfg::kClusterM, nullptr);
    int count = 0;
    SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&count, wgmma_gemm_kernel<Cfg, E>, &one.config));
    if (count < 1) throw std::runtime_error("gemm: no cluster of the Hopper kernel fits on this GPU");
    return count;
  });
}

template <class Cfg, class E>
void launch_wgmma_with(const GemmArgs& g, cudaStream_t stream, int group, KSplit split) {
  allow_shared_memory<Cfg, E>();
  constexpr int kBK = Cfg::template kBK<E>;
  // tf32: g.b is B's transpose, N x K; swapped, wgmma's A is B (32 x 32 boxes) and its B is A.
  const CUtensorMap a_map = Cfg::kSwapped ? tensor_map(g.b, g.input, g.k, g.n, g.ldb, kBK, 32)
                                          : tensor_map(g.a, g.input, g.m, g.k, g.lda, Cfg::kBM, kBK);
  const CUtensorMap b_map = Cfg::kSwapped ? tensor_map(g.a, g.input, g.m, g.k, g.lda, Cfg::kBN, kBK)
                            : kIsTf32<E>
                                ? tensor_map(g.b, g.input, g.n, g.k, g.ldb, Cfg::kBN / Cfg::kClusterM, kBK)
                                : tensor_map(g.b, g.input, g.k, g.n, g.ldb, kBK, 64);
  // TMA stores C where it can: beta = 0 (C is not read) and rows 16-byte aligned; partial sums
  // are stored from registers.
  const bool c_by_tma = Cfg::kTmaStore && split.count == 1 && g.beta == 0.0F && reinterpret_cast<std::uintptr_t>(g.c) % 16 == 0 &&
                        g.ldc % 4 == 0;
  const CUtensorMap c_map =
      c_by_tma ? tensor_map(g.c, DType::f32, g.m, g.n, g.ldc, 64, 8, CU_TENSOR_MAP_SWIZZLE_NONE) : CUtensorMap{};
  const int rows = Cfg::kSwapped ? g.n : g.m;
  const int cols = Cfg::kSwapped ? g.m : g.n;
  const long long items = static_cast<long long>((rows + Cfg::kBM * Cfg::kClusterM - 1) / (Cfg::kBM * Cfg::kClusterM)) *
                          ((cols + Cfg::kBN - 1) / Cfg::kBN);
  if (items * Cfg::kClusterM * split.count > 0x7FFFFFFFLL)
    throw std::invalid_argument("gemm: C has more tiles than a grid holds");
  if constexpr (Cfg::kClusterM == 1) {
    const long long work = items * split.count;
    const long long blocks = Cfg::kPersistent ? std::min<long long>(work, device_sms()) : work;
    wgmma_gemm_kernel<Cfg, E><<<static_cast<unsigned>(blocks), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(
        a_map, b_map, c_map, g, group, c_pairs_aligned(g), c_by_tma, split);
    SMEMLAB_LAUNCH_CHECK();
  } else {
    if (split.count != 1) throw std::logic_error("gemm: clusters do not split K");
    // As many clusters as fit at once, each walking groups of kClusterM tiles.
    const long long clusters = std::min<long long>(items, resident_clusters<Cfg, E>());
    const ClusterLaunch<Cfg> launch(static_cast<unsigned>(clusters * Cfg::kClusterM), stream);
    SMEMLAB_CUDA_CHECK(cudaLaunchKernelEx(&launch.config, wgmma_gemm_kernel<Cfg, E>, a_map, b_map, c_map, g, group,
                                          c_pairs_aligned(g), c_by_tma, split));
  }
}

// Operands TMA cannot read (rows not 16-byte aligned) are repacked first; tf32 reads B's
// transpose, except on swapped tiles (tf32 only). With splits > 1, K's steps are divided into
// that many ranges (fewer where K has fewer steps), whose partial sums go to the workspace
// after the repacked operands and are added in range order by a second kernel.
template <class Cfg>
void launch_wgmma(const GemmArgs& args, const LaunchContext& ctx, int group, int splits = 1) {
  if (Cfg::kSwapped && args.input != DType::tf32) throw std::logic_error("gemm: swapped tiles are for tf32");
  const bool transposes_b = args.input == DType::tf32 && !Cfg::kSwapped;
  const AlignedOperands aligned(args, ctx, transposes_b ? BOperand::transposed : BOperand::row_major);
  const KRanges ranges = k_ranges(args.k, k_step(args.input), splits);
  KSplit split{ranges.count, ranges.steps_per_range};
  std::optional<PartialSums> partials;
  if (ranges.count > 1) split.partials = partials.emplace(args, ranges.count, aligned.workspace_used(), ctx.stream).data();
  with_input_type(args.input, [&](auto e) {
    if constexpr (!Cfg::kSwapped || kIsTf32<decltype(e)>)
      launch_wgmma_with<Cfg, decltype(e)>(aligned.args(), ctx.stream, group, split);
  });
  if (partials) sum_partials(split.partials, ranges.count, args, ctx.stream);
}

}  // namespace smemlab::tensor_matmul::detail
