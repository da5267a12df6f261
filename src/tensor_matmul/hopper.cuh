#pragma once
// Hopper's pieces of the tensor-core GEMMs (compute capability 9.0, built for sm_90a): mbarriers
// that count arrivals and bytes, TMA copies of a tile into shared memory that complete on one,
// the matrix descriptors through which wgmma reads a swizzled tile straight from shared memory,
// and wgmma itself: one warpgroup (4 warps, 128 threads) multiplies a 64 x N tile of A by an
// N-column tile of B, asynchronously, into accumulators spread over its registers.
#include <cuda.h>

#include <cstdint>

#include "tensor_matmul/mma_device.cuh"

namespace smemlab::tensor_matmul::detail::hopper {

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- mbarrier: a phase completes when `count` threads have arrived and the bytes announced
// by expect_bytes have landed; waiters name the phase's parity (0, 1, 0, ...).
__device__ __forceinline__ void barrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count));
}

// Makes initialised barriers visible to the copy engine; the block synchronises after it.
__device__ __forceinline__ void barrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

// Arrives and announces `bytes` more to land in this phase.
__device__ __forceinline__ void arrive_expect_bytes(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}

// Waits for the phase of `bar` named by `parity`. FromCluster: the arrivals may come from other
// blocks of the cluster, and what they wrote before arriving is visible after (acquire at
// cluster scope).
template <bool FromCluster = false>
__device__ __forceinline__ void wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  do {
    if constexpr (FromCluster) {
      asm volatile(
          "{\n.reg .pred complete;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 complete, [%1], %2;\n"
          "selp.u32 %0, 1, 0, complete;\n}\n"
          : "=r"(done)
          : "r"(shared_address(bar)), "r"(parity)
          : "memory");
    } else {
      asm volatile(
          "{\n.reg .pred complete;\nmbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
          "selp.u32 %0, 1, 0, complete;\n}\n"
          : "=r"(done)
          : "r"(shared_address(bar)), "r"(parity)
          : "memory");
    }
  } while (done == 0);
}

// ---- TMA: the box of `map` at (column, row) into shared memory, completing on `bar`.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap& map, int column, int row, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(column), "r"(row), "r"(shared_address(bar))
      : "memory");
}

// ---- TMA stores: the box of `map` at (column, row) from shared memory; what lies past the
// matrix's edge is not written. A thread's stores form groups (store_commit closes one);
// wait_store_reads<N> returns once at most N of its groups still read shared memory, so their
// buffers may be written again; wait_stores<N> once at most N are still writing global memory.
__device__ __forceinline__ void tma_store(const CUtensorMap& map, int column, int row, const void* src) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(&map)),
               "r"(column), "r"(row), "r"(shared_address(src))
               : "memory");
}
__device__ __forceinline__ void store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_store_reads() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void wait_stores() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

// Makes the thread's ordinary shared-memory writes visible to the copy engine, which reads
// through another path (the async proxy); the threads synchronise after it.
__device__ __forceinline__ void fence_shared_for_copies() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Synchronises the `threads` threads (whole warps) that name barrier `id`; 0 is __syncthreads'.
__device__ __forceinline__ void sync_named(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// sync_named for threads that may reach it apart from the rest of their warp (its other lanes
// exited, or elsewhere): the non-aligned form, which waits for the warp's non-exited threads.
__device__ __forceinline__ void sync_named_divergent(int id, int threads) {
  asm volatile("barrier.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- Thread-block clusters: blocks of one cluster can arrive on each other's mbarriers, and
// one TMA copy can write the same box into several of them (multicast).
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// Every thread of every block of the cluster, each warp converged; what was written before is
// visible after.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// Arrives on the mbarrier at the same place in block `rank` of the cluster. The arrival keeps
// the default ordering (release at block scope): what it announces, that wgmma has finished
// reading a stage, the wait for the wgmma batch already guarantees. A release at cluster scope
// makes the arriving thread wait for its earlier memory operations to be visible to the whole
// cluster; once per stage, it halved the rate of the cluster step.
__device__ __forceinline__ void arrive_in_block(std::uint64_t* bar, unsigned rank) {
  unsigned remote = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(shared_address(bar)), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote) : "memory");
}

// Four floats at the same place in block `rank`'s shared memory (distributed shared memory).
__device__ __forceinline__ float4 load_from_block(const float4* p, unsigned rank) {
  unsigned remote = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(shared_address(p)), "r"(rank));
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(remote)
               : "memory");
  return v;
}

// tma_load into the same place of every block in `blocks` (a bit per cluster rank), each
// block's `bar` counting the bytes.
__device__ __forceinline__ void tma_load_multicast(void* dst, const CUtensorMap& map, int column, int row,
                                                   std::uint64_t* bar, std::uint16_t blocks) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(column), "r"(row), "r"(shared_address(bar)), "h"(blocks)
      : "memory");
}

// ---- wgmma matrix descriptors, for tiles written by TMA with the 128-byte swizzle (the tile's
// base 1024-byte aligned): the start address, the leading and stride byte offsets (both in
// 16-byte units) and the swizzle mode.
//   A, K-major (rows of 128 bytes of K): 8-row groups 1024 bytes apart (stride offset); the
//   leading offset is unused. The next 16 elements of K start 32 bytes on.
//   B, N-major (rows of 128 bytes of N, 64 rows of K per 64-column block): 8-row groups of K
//   1024 bytes apart (stride offset), 64-column blocks `block_bytes` apart (leading offset).
//   The next 16 rows of K start 2048 bytes on. B K-major (tf32: B's transpose) is read as A,
//   and A M-major (a 64-row slice: one block of 64 rows of K x 128 bytes of M) as B N-major.
__device__ __forceinline__ std::uint64_t descriptor(const void* tile, unsigned leading_bytes, unsigned stride_bytes) {
  constexpr std::uint64_t kSwizzle128 = 1;
  return static_cast<std::uint64_t>((shared_address(tile) & 0x3FFFF) >> 4) |
         static_cast<std::uint64_t>(leading_bytes >> 4) << 16 | static_cast<std::uint64_t>(stride_bytes >> 4) << 32 |
         kSwizzle128 << 62;
}

// ---- wgmma: issue after fence(), close a batch with commit(), wait<N>() until at most N
// batches are in flight. The accumulators pass through registers the compiler must not touch
// meanwhile: keep_in_registers() marks them before and after.
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_batches() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
template <int Count>
__device__ __forceinline__ void keep_in_registers(float (&d)[Count]) {
#pragma unroll
  for (int i = 0; i < Count; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// Register budgets of a warp-specialised block: the producer warpgroup gives registers back,
// the consumers take them.
template <int Registers>
__device__ __forceinline__ void release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ __forceinline__ void claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

// D (64 x N, float) += A (64 x 32 bytes of K, from shared memory, K-major) * B (32 bytes of K x
// N). bf16 and half (k16): B N-major, the last two immediates saying A is not transposed and B
// is; KMajorB<bf16 or half>: B K-major, neither transposed; MMajorA<...> of either: A M-major,
// transposed. tf32 (k8): both K-major, the only layout wgmma takes for it. Accumulator i of thread t
// holds row 16 (t / 32) + (t % 32) / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (t % 4) + i % 2.
template <int N, class E>
struct Wgmma;

// The specialisations differ only in the shape, the types, the immediates after the scale of D
// (bf16 and half: scale A, scale B, transpose A, transpose B; tf32: the scales) and the number
// of accumulator registers, whose operand lists are written out once here.
#define SMEMLAB_WGMMA_REGS_0_31 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define SMEMLAB_WGMMA_D_0_31 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define SMEMLAB_WGMMA_REGS_0_63 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define SMEMLAB_WGMMA_REGS_64_127 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define SMEMLAB_WGMMA_D_0_63 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define SMEMLAB_WGMMA_D_0_127 SMEMLAB_WGMMA_D_0_63, "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define SMEMLAB_WGMMA(N, ACCUMULATORS, E, INSTRUCTION, REGS, AB, PREDICATE, IMMEDIATES, D)                  \
  template <>                                                                                              \
  struct Wgmma<N, E> {                                                                                      \
    static __device__ __forceinline__ void mma(float (&d)[ACCUMULATORS], std::uint64_t a, std::uint64_t b) { \
      asm volatile("{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, " PREDICATE ", 0;\n"                \
                   "wgmma.mma_async.sync.aligned." INSTRUCTION " {" REGS "}, " AB ", accumulate" IMMEDIATES  \
                   ";\n}\n"                                                                                 \
                   : D                                                                                     \
                   : "l"(a), "l"(b), "r"(1));                                                              \
    }                                                                                                      \
  };
#define SMEMLAB_WGMMA_N64(E, INSTRUCTION, IMMEDIATES) \
  SMEMLAB_WGMMA(64, 32, E, INSTRUCTION, SMEMLAB_WGMMA_REGS_0_31, "%32, %33", "%34", IMMEDIATES, SMEMLAB_WGMMA_D_0_31)
#define SMEMLAB_WGMMA_N128(E, INSTRUCTION, IMMEDIATES) \
  SMEMLAB_WGMMA(128, 64, E, INSTRUCTION, SMEMLAB_WGMMA_REGS_0_63, "%64, %65", "%66", IMMEDIATES, SMEMLAB_WGMMA_D_0_63)
#define SMEMLAB_WGMMA_N256(E, INSTRUCTION, IMMEDIATES)                                                  \
  SMEMLAB_WGMMA(256, 128, E, INSTRUCTION, SMEMLAB_WGMMA_REGS_0_63 SMEMLAB_WGMMA_REGS_64_127, "%128, %129", \
                "%130", IMMEDIATES, SMEMLAB_WGMMA_D_0_127)

SMEMLAB_WGMMA_N64(Bf16, "m64n64k16.f32.bf16.bf16", ", 1, 1, 0, 1")
SMEMLAB_WGMMA_N64(Half, "m64n64k16.f32.f16.f16", ", 1, 1, 0, 1")
SMEMLAB_WGMMA_N64(KMajorB<Bf16>, "m64n64k16.f32.bf16.bf16", ", 1, 1, 0, 0")
SMEMLAB_WGMMA_N64(KMajorB<Half>, "m64n64k16.f32.f16.f16", ", 1, 1, 0, 0")
SMEMLAB_WGMMA_N64(MMajorA<Bf16>, "m64n64k16.f32.bf16.bf16", ", 1, 1, 1, 1")
SMEMLAB_WGMMA_N64(MMajorA<Half>, "m64n64k16.f32.f16.f16", ", 1, 1, 1, 1")
SMEMLAB_WGMMA_N64(MMajorA<KMajorB<Bf16>>, "m64n64k16.f32.bf16.bf16", ", 1, 1, 1, 0")
SMEMLAB_WGMMA_N64(MMajorA<KMajorB<Half>>, "m64n64k16.f32.f16.f16", ", 1, 1, 1, 0")
SMEMLAB_WGMMA_N64(Tf32, "m64n64k8.f32.tf32.tf32", ", 1, 1")
SMEMLAB_WGMMA_N128(Bf16, "m64n128k16.f32.bf16.bf16", ", 1, 1, 0, 1")
SMEMLAB_WGMMA_N128(Half, "m64n128k16.f32.f16.f16", ", 1, 1, 0, 1")
SMEMLAB_WGMMA_N256(Bf16, "m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 1")
SMEMLAB_WGMMA_N256(Half, "m64n256k16.f32.f16.f16", ", 1, 1, 0, 1")
SMEMLAB_WGMMA_N128(KMajorB<Bf16>, "m64n128k16.f32.bf16.bf16", ", 1, 1, 0, 0")
SMEMLAB_WGMMA_N128(KMajorB<Half>, "m64n128k16.f32.f16.f16", ", 1, 1, 0, 0")
SMEMLAB_WGMMA_N256(KMajorB<Bf16>, "m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0")
SMEMLAB_WGMMA_N256(KMajorB<Half>, "m64n256k16.f32.f16.f16", ", 1, 1, 0, 0")
SMEMLAB_WGMMA_N128(MMajorA<Bf16>, "m64n128k16.f32.bf16.bf16", ", 1, 1, 1, 1")
SMEMLAB_WGMMA_N128(MMajorA<Half>, "m64n128k16.f32.f16.f16", ", 1, 1, 1, 1")
SMEMLAB_WGMMA_N256(MMajorA<Bf16>, "m64n256k16.f32.bf16.bf16", ", 1, 1, 1, 1")
SMEMLAB_WGMMA_N256(MMajorA<Half>, "m64n256k16.f32.f16.f16", ", 1, 1, 1, 1")
SMEMLAB_WGMMA_N128(MMajorA<KMajorB<Bf16>>, "m64n128k16.f32.bf16.bf16", ", 1, 1, 1, 0")
SMEMLAB_WGMMA_N128(MMajorA<KMajorB<Half>>, "m64n128k16.f32.f16.f16", ", 1, 1, 1, 0")
SMEMLAB_WGMMA_N256(MMajorA<KMajorB<Bf16>>, "m64n256k16.f32.bf16.bf16", ", 1, 1, 1, 0")
SMEMLAB_WGMMA_N256(MMajorA<KMajorB<Half>>, "m64n256k16.f32.f16.f16", ", 1, 1, 1, 0")
SMEMLAB_WGMMA_N128(Tf32, "m64n128k8.f32.tf32.tf32", ", 1, 1")
SMEMLAB_WGMMA_N256(Tf32, "m64n256k8.f32.tf32.tf32", ", 1, 1")

// D (64 x N, float) += A (64 x 8, tf32, from registers) * B (8 x N, tf32, from shared memory,
// K-major). Thread t holds A's row 16 (t / 32) + (t % 32) / 4 in a[0] and a[2], the row 8 below
// in a[1] and a[3], column t % 4 in a[0] and a[1], 4 to the right in a[2] and a[3]; D as in
// Wgmma. The instruction reads the registers while it runs: they are not written again until
// wait_batches says its batch is done (where ptxas cannot tell, it serialises the wgmma).
template <int N>
struct WgmmaRegisterA;
#define SMEMLAB_WGMMA_REGISTER_A(N, ACCUMULATORS, REGS, AB, PREDICATE, D)                                         \
  template <>                                                                                                   \
  struct WgmmaRegisterA<N> {                                                                                    \
    static __device__ __forceinline__ void mma(float (&d)[ACCUMULATORS], const unsigned (&a)[4], std::uint64_t b) { \
      asm volatile("{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, " PREDICATE ", 0;\n"                    \
                   "wgmma.mma_async.sync.aligned.m64n" #N "k8.f32.tf32.tf32 {" REGS "}, " AB                    \
                   ", accumulate, 1, 1;\n}\n"                                                                 \
                   : D                                                                                         \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));                              \
    }                                                                                                          \
  };
SMEMLAB_WGMMA_REGISTER_A(128, 64, SMEMLAB_WGMMA_REGS_0_63, "{%64, %65, %66, %67}, %68", "%69", SMEMLAB_WGMMA_D_0_63)
SMEMLAB_WGMMA_REGISTER_A(256, 128, SMEMLAB_WGMMA_REGS_0_63 SMEMLAB_WGMMA_REGS_64_127,
                         "{%128, %129, %130, %131}, %132", "%133", SMEMLAB_WGMMA_D_0_127)
#undef SMEMLAB_WGMMA_REGISTER_A

#undef SMEMLAB_WGMMA_N256
#undef SMEMLAB_WGMMA_N128
#undef SMEMLAB_WGMMA_N64
#undef SMEMLAB_WGMMA
#undef SMEMLAB_WGMMA_D_0_127
#undef SMEMLAB_WGMMA_D_0_63
#undef SMEMLAB_WGMMA_D_0_31
#undef SMEMLAB_WGMMA_REGS_64_127
#undef SMEMLAB_WGMMA_REGS_0_63
#undef SMEMLAB_WGMMA_REGS_0_31

}  // namespace smemlab::tensor_matmul::detail::hopper
