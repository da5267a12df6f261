#pragma once
// cp.async (compute capability 8.0 and later): global -> shared copies that do not pass
// through registers and complete asynchronously, in groups. Bytes past src_bytes are
// zero-filled, so a copy that reaches past a matrix's edge needs no separate clearing.
namespace smemlab::detail {

__device__ __forceinline__ void cp_async4(void* dst, const void* src, bool valid) {
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 4 : 0));
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

}  // namespace smemlab::detail
