#pragma once
// Host-side drivers shared by the device variants: repeated passes over partial sums, the
// tutorial's finishing of partial sums on the host, and launch sizing.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "smemlab/error.hpp"
#include "smemlab/reduce.hpp"
#include "core/occupancy.hpp"

namespace smemlab::reduce::detail {

// One launch: block b writes the sum of its per_block values of in[0, n) to partials[b].
template <class T>
using PassFn = void (*)(const T* in, std::size_t n, T* partials, unsigned blocks, cudaStream_t);

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

inline unsigned grid_size(std::size_t blocks) {
  return smemlab::detail::grid_1d(blocks, "reduce: n too large for one grid");
}

template <class T>
void write_zero(T* out, cudaStream_t stream) {
  SMEMLAB_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T), stream));  // +0.0 is all-zero bits
}

// Blocks for a grid-stride kernel: as many as can be resident at once, no more than the data
// needs (per_thread elements per thread).
template <class Kernel>
unsigned resident_grid(Kernel kernel, std::size_t n, int threads, std::size_t per_thread) {
  const auto resident = static_cast<std::size_t>(smemlab::detail::resident_blocks(kernel, threads));
  return grid_size(std::max<std::size_t>(1, std::min(resident, ceil_div(n, threads * per_thread))));
}

// Ping-pong buffers for the partial sums of repeated passes.
inline std::size_t passes_workspace_bytes(std::size_t n, std::size_t per_block, std::size_t elem) {
  const std::size_t first = ceil_div(n, per_block);
  return (first + ceil_div(first, per_block)) * elem;
}

// Repeated passes: n values -> one partial per block -> ... -> one value, written to out.
template <class T>
void reduce_in_passes(const T* in, std::size_t n, T* out, void* workspace, std::size_t per_block,
                      PassFn<T> pass, cudaStream_t stream) {
  if (n == 0) return write_zero(out, stream);
  T* const first = static_cast<T*>(workspace);
  T* const buffers[2] = {first, first + ceil_div(n, per_block)};
  const T* src = in;
  std::size_t count = n;
  for (int which = 0;; which ^= 1) {
    const std::size_t blocks = ceil_div(count, per_block);
    T* const dst = blocks == 1 ? out : buffers[which];
    pass(src, count, dst, grid_size(blocks), stream);
    if (blocks == 1) return;
    src = dst;
    count = blocks;
  }
}

template <class T, std::size_t PerBlock, PassFn<T> Pass>
Ops<T> multi_pass_ops() {
  return {.workspace_bytes = [](std::size_t n) { return passes_workspace_bytes(n, PerBlock, sizeof(T)); },
          .device = [](const T* in, std::size_t n, T* out, void* ws, cudaStream_t s) {
            reduce_in_passes<T>(in, n, out, ws, PerBlock, Pass, s);
          }};
}

// The tutorial “Shared Memory” copies the per-block partial sums to the host and adds them there.
// We do the same, but add in double: its loop in float would bring back "big eats small" for large
// n. The call waits for the stream: it is synchronous, as the tutorial's program is.
template <class T>
void finish_on_host(const T* partials, std::size_t count, T* out, cudaStream_t stream) {
  std::vector<T> host(count);
  SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), partials, count * sizeof(T),
                                     cudaMemcpyDeviceToHost, stream));
  SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  double sum = 0.0;
  for (const T p : host) sum += p;
  const T result = static_cast<T>(sum);
  SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(out, &result, sizeof(T), cudaMemcpyHostToDevice, stream));
  SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// The host's part of the sum cannot be recorded in a CUDA graph: while `stream` is being
// captured, the call is refused before any work, in words that name the way out.
inline void refuse_capture(cudaStream_t stream) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  SMEMLAB_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone)
    throw std::invalid_argument(
        "reduce: this variant adds the block sums on the host, as the tutorial “Shared Memory” "
        "does, and a CUDA graph cannot capture that; capture a variant that finishes on the device, "
        "such as single_pass");
}

template <class T, std::size_t PerBlock, PassFn<T> Pass>
Ops<T> host_finish_ops() {
  return {.workspace_bytes = [](std::size_t n) { return ceil_div(n, PerBlock) * sizeof(T); },
          .device = [](const T* in, std::size_t n, T* out, void* ws, cudaStream_t s) {
            refuse_capture(s);
            if (n == 0) return write_zero(out, s);
            const std::size_t blocks = ceil_div(n, PerBlock);
            Pass(in, n, static_cast<T*>(ws), grid_size(blocks), s);
            finish_on_host(static_cast<const T*>(ws), blocks, out, s);
          }};
}

}  // namespace smemlab::reduce::detail
