// 04 — Hopper: TMA copies, wgmma for both products, a producer warpgroup. Changed from 03: a
// block is three warpgroups (128 threads each). One producer thread issues TMA copies: Q's tile
// of 128 rows once, then each K and V tile into a ring of two stages, each stage completing on
// an mbarrier that counts its bytes; the copy engine writes the 128-byte swizzle itself and
// reads Q, K and V through rank-4 tensor maps ([batch, heads, seq, head_dim] with the caller's
// strides), so rows past a sequence's end arrive as zeros. Two consumer warpgroups own 64 rows
// each: S = Q K^T is one wgmma m64n64 per 16 columns of head_dim, reading Q and K straight from
// shared memory; the softmax runs on S's accumulators as in 02 and 03 (their layout is
// mma.sync's, a warp per 16 rows); O += P V is wgmma with P from registers and V from shared
// memory. A consumer frees a stage by arriving on its `empty` mbarrier. The producer gives its
// registers back (setmaxnreg), so each consumer thread has 240. Should buy: the products at
// wgmma's rate, which mma.sync cannot reach on Hopper, no fragment loads for K and V, no
// address arithmetic for copies in the consumers, and one warpgroup's softmax beside the
// other's products: 400 TFLOP/s or more at head dim 128.
#include "attention/attention_device.cuh"
#include "attention/variants.hpp"
#include "attention/wgmma_ops.cuh"
#include "tensor_matmul/hopper.cuh"
#include "tensor_matmul/tensor_map.hpp"

namespace smemlab::attention::detail {
namespace {

namespace hopper = smemlab::tensor_matmul::detail::hopper;

constexpr int kConsumers = 2;                // warpgroups of 64 query rows
constexpr int kRows = 64 * kConsumers;       // Q rows a block
constexpr int kKeys = 64;                    // keys a K/V tile
constexpr int kStages = 2;                   // K/V tiles in flight
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kBlockColumns = 64;            // head_dim columns a 128-byte swizzled block holds

// Shared memory: Q, then the stages of K and of V, each a row of 64-column blocks (rows x 128
// bytes each, 1024-byte aligned as the swizzle needs), then the mbarriers.
template <int D>
struct Smem {
  static constexpr int kBlocks = D / kBlockColumns;
  static constexpr int kQBytes = kRows * D * 2;
  static constexpr int kTileBytes = kKeys * D * 2;  // one stage of K or of V
  static constexpr int kK = kQBytes;
  static constexpr int kV = kK + kStages * kTileBytes;
  static constexpr int kBarriers = kV + kStages * kTileBytes;
  static constexpr int kBytes = kBarriers + (1 + 3 * kStages) * 8 + 1024;  // + room to align the base
};

struct Maps {
  CUtensorMap q, k, v;
};

// The box at (column, row, head, batch) of a rank-4 map into shared memory, completing on `bar`.
__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap& map, int column, int row, int head,
                                            int batch, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], "
      "[%6];\n" ::"r"(hopper::shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(column), "r"(row), "r"(head), "r"(batch),
      "r"(hopper::shared_address(bar))
      : "memory");
}

// A K-major operand of rows x (16 columns at `column`) in a tile of 64-column swizzled blocks
// (rows x 128 bytes each): 8-row groups 1024 bytes apart, 16 columns 32 bytes on.
__device__ __forceinline__ std::uint64_t k_major(const unsigned char* tile, int rows, int column) {
  return hopper::descriptor(tile + (column / kBlockColumns) * rows * 128 + (column % kBlockColumns) * 2, 0, 1024);
}

template <class T, int D>
__global__ void __launch_bounds__(kThreads, 1) tma_wgmma_kernel(const __grid_constant__ Maps maps, Problem<T> p) {
  using L = Smem<D>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* const smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t{1023});
  auto* const barriers = reinterpret_cast<std::uint64_t*>(smem + L::kBarriers);
  std::uint64_t* const q_full = barriers;
  std::uint64_t* const k_full = barriers + 1;                // one a stage
  std::uint64_t* const v_full = k_full + kStages;
  std::uint64_t* const empty = v_full + kStages;             // both consumers done with a stage

  const BlockRows at = block_rows(p);
  const int first_row = at.tile * kRows;
  const KeyRange keys = key_range(p, first_row, kRows);
  const int tiles = (keys.end + kKeys - 1) / kKeys;
  const int warpgroup = static_cast<int>(threadIdx.x) / 128;
  if (threadIdx.x == 0) {
    hopper::barrier_init(q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      hopper::barrier_init(&k_full[s], 1);
      hopper::barrier_init(&v_full[s], 1);
      hopper::barrier_init(&empty[s], kConsumers);
    }
    hopper::barrier_init_fence();
  }
  __syncthreads();

  if (warpgroup == 0) {  // the producer
    hopper::release_registers<24>();
    if (threadIdx.x != 0) return;
    hopper::arrive_expect_bytes(q_full, L::kQBytes);
    for (int b = 0; b < L::kBlocks; ++b)
      tma_load_4d(smem + b * kRows * 128, maps.q, b * kBlockColumns, first_row, at.head, at.batch, q_full);
    const int kv_head = at.head / p.group;
    for (int tile = 0; tile < tiles; ++tile) {
      const int stage = tile % kStages;
      if (tile >= kStages) hopper::wait(&empty[stage], (tile / kStages - 1) & 1);
      unsigned char* const k_tile = smem + L::kK + stage * L::kTileBytes;
      unsigned char* const v_tile = smem + L::kV + stage * L::kTileBytes;
      hopper::arrive_expect_bytes(&k_full[stage], L::kTileBytes);
      for (int b = 0; b < L::kBlocks; ++b)
        tma_load_4d(k_tile + b * kKeys * 128, maps.k, b * kBlockColumns, tile * kKeys, kv_head, at.batch,
                    &k_full[stage]);
      hopper::arrive_expect_bytes(&v_full[stage], L::kTileBytes);
      for (int b = 0; b < L::kBlocks; ++b)
        tma_load_4d(v_tile + b * kKeys * 128, maps.v, b * kBlockColumns, tile * kKeys, kv_head, at.batch,
                    &v_full[stage]);
    }
    return;
  }

  hopper::claim_registers<240>();
  const int consumer = warpgroup - 1;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warp = (static_cast<int>(threadIdx.x) / 32) % 4;
  WarpRows<kKeys, D> rows{.top = first_row + 64 * consumer + 16 * warp + lane / 4, .t = lane % 4};
  const unsigned char* const q_tile = smem + consumer * 64 * 128;  // this consumer's 64 rows of each block
  float o[D / 2] = {};
  auto& acc = reinterpret_cast<float(&)[D / 8][4]>(o);
  hopper::wait(q_full, 0);
  for (int tile = 0; tile < tiles; ++tile) {
    const int stage = tile % kStages;
    const unsigned parity = (tile / kStages) & 1;
    const unsigned char* const k_tile = smem + L::kK + stage * L::kTileBytes;
    const unsigned char* const v_tile = smem + L::kV + stage * L::kTileBytes;

    float s_flat[32] = {};
    hopper::wait(&k_full[stage], parity);
    hopper::keep_in_registers(s_flat);
    hopper::fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk)
      ScoreMma<T>::mma(s_flat, k_major(q_tile, kRows, 16 * kk), k_major(k_tile, kKeys, 16 * kk));
    hopper::commit();
    hopper::wait_batches<0>();
    hopper::keep_in_registers(s_flat);
    auto& s = reinterpret_cast<float(&)[kKeys / 8][4]>(s_flat);
    if ((tile + 1) * kKeys > keys.unmasked_end) rows.mask(s, p, tile * kKeys);
    rows.update(s, acc, p.scale_log2);

    // P's fragments all made before the products: wgmma reads its A registers while it runs.
    std::uint32_t a[kKeys / 16][4];
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk) p_fragment<T, kKeys>(a[kk], s, kk);
    hopper::wait(&v_full[stage], parity);
    hopper::keep_in_registers(o);
    hopper::fence();
#pragma unroll
    for (int kk = 0; kk < kKeys / 16; ++kk)
      // V, N-major: 16 keys are 16 rows of each 64-column block (2048 bytes on a step), blocks
      // kKeys x 128 bytes apart.
      OutputMma<T, D>::mma(o, a[kk], hopper::descriptor(v_tile + kk * 16 * 128, kKeys * 128, 1024));
    hopper::commit();
    hopper::wait_batches<0>();
    hopper::keep_in_registers(o);
    if (threadIdx.x % 128 == 0) hopper::arrive(&empty[stage]);
  }
  rows.store(p, at, acc);
}

template <class T, int D>
void launch_typed(const Args& a, cudaStream_t stream) {
  const Shape& s = a.shape;
  const auto map = [&](const void* base, const Strides& st, int heads, int len, int box_rows) {
    const std::uint64_t dims[4] = {static_cast<std::uint64_t>(D), static_cast<std::uint64_t>(len),
                                   static_cast<std::uint64_t>(heads), static_cast<std::uint64_t>(s.batch)};
    const std::uint64_t strides[3] = {static_cast<std::uint64_t>(st.seq) * 2, static_cast<std::uint64_t>(st.head) * 2,
                                      static_cast<std::uint64_t>(st.batch) * 2};
    const std::uint32_t box[4] = {kBlockColumns, static_cast<std::uint32_t>(box_rows), 1, 1};
    return tensor_matmul::detail::strided_tensor_map(base, a.type, 4, dims, strides, box);
  };
  Maps maps{};
  maps.q = map(a.q, a.q_strides, s.q_heads, s.q_len, kRows);
  if (s.kv_len > 0) {
    maps.k = map(a.k, a.k_strides, s.kv_heads, s.kv_len, kKeys);
    maps.v = map(a.v, a.v_strides, s.kv_heads, s.kv_len, kKeys);
  }
  const Problem<T> p = problem_of<T>(a, kRows);
  const long long blocks = static_cast<long long>(s.batch) * s.q_heads * p.q_tiles;
  if (blocks > 0x7FFFFFFF) throw std::invalid_argument("attention: more than 2^31 - 1 Q tiles");
  const auto kernel = tma_wgmma_kernel<T, D>;
  SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Smem<D>::kBytes));
  kernel<<<static_cast<unsigned>(blocks), kThreads, Smem<D>::kBytes, stream>>>(maps, p);
  SMEMLAB_CUDA_CHECK(cudaGetLastError());
}

void launch(const Args& a, const LaunchContext& ctx) {
  with_element_type(a.type, [&]<class T>(T) {
    if (a.shape.head_dim == 64) launch_typed<T, 64>(a, ctx.stream);
    if (a.shape.head_dim == 128) launch_typed<T, 128>(a, ctx.stream);
    if (a.shape.head_dim == 256) launch_typed<T, 256>(a, ctx.stream);
  });
}

}  // namespace

AttentionVariant tma_wgmma_variant() {
  return {{.family = "attention",
           .name = "tma_wgmma",
           .description = "a TMA producer warpgroup and two consumers; wgmma for Q K^T and for P V",
           .technique = "Hopper: tensor maps of rank 4, mbarrier stages, wgmma with P from registers",
           .smem = SmemKind::dynamic_alloc,
           .why_no_model = "not modelled yet: its wavefronts are not derived",
           .unavailable = tensor_matmul::detail::why_no_wgmma},
          {[](const Args&) { return std::size_t{0}; }, launch}};
}

}  // namespace smemlab::attention::detail
