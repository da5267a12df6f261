#pragma once
// cp.async (compute capability 8.0 and later): global -> shared copies that do not pass
// through registers and complete asynchronously, in groups. Bytes past src_bytes are
// zero-filled, so a copy that reaches past a matrix's edge needs no separate clearing.
namespace smemlab::detail {

// dst and src 4-byte aligned; src_bytes in [0, 4].
__device__ __forceinline__ void cp_async4_bytes(void* dst, const void* src, int src_bytes) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(src_bytes));
}

__device__ __forceinline__ void cp_async4(void* dst, const void* src, bool valid) {
  cp_async4_bytes(dst, src, valid ? 4 : 0);
}

// dst and src 16-byte aligned; src_bytes in [0, 16].
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int src_bytes) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most Pending of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// The K-loop of a tile GEMM over a ring of Stages shared buffers: copy(step, stage) issues the
// cp.async copies of K-step `step` into buffer `stage`, compute(stage) reads a buffer. With one
// stage a block copies, waits, computes and waits again; with more, the copies of the next
// Stages - 1 steps are in flight while one is computed, behind one barrier per step.
template <int Stages, class Copy, class Compute>
__device__ __forceinline__ void pipelined_steps(int steps, Copy&& copy, Compute&& compute) {
  if constexpr (Stages == 1) {
    for (int step = 0; step < steps; ++step) {
      copy(step, 0);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();
      compute(0);
      __syncthreads();  // the buffer is rewritten next
    }
  } else {
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < steps) copy(s, s);
      cp_async_commit();  // empty groups keep the count of pending groups uniform
    }
    int read_stage = 0;
    int write_stage = Stages - 1;
    for (int step = 0; step < steps; ++step) {
      cp_async_wait<Stages - 2>();  // this thread's copies of `step` have landed ...
      __syncthreads();  // ... and everyone's; the buffer refilled below was last read a step ago
      if (step + Stages - 1 < steps) copy(step + Stages - 1, write_stage);
      cp_async_commit();
      compute(read_stage);
      read_stage = read_stage + 1 == Stages ? 0 : read_stage + 1;
      write_stage = write_stage + 1 == Stages ? 0 : write_stage + 1;
    }
  }
}

}  // namespace smemlab::detail
