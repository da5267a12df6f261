#pragma once
// Reduction: the sum of an array of float or double, any n >= 0 (n = 0 sums to 0), the input
// left unchanged, on the caller's stream.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string_view>

#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::reduce {

template <class T>
struct Args {
  const T* in = nullptr;
  std::size_t n = 0;
  T* out = nullptr;           // device memory, one element
  void* workspace = nullptr;  // workspace_bytes<T>(variant, n) bytes; see sum()
};

// One element type's entry points of a variant. A variant runs either on the device or on the
// host; a null pointer means the variant does not exist for this type.
template <class T>
struct Ops {
  // Scratch the device variant needs for n elements (partial sums, a copy of the input).
  std::size_t (*workspace_bytes)(std::size_t n) = nullptr;
  // *out = sum of in[0, n) on `stream`; `out` is device memory.
  void (*device)(const T* in, std::size_t n, T* out, void* workspace, cudaStream_t stream) = nullptr;
  // The sum of a host array.
  T (*host)(const T* in, std::size_t n) = nullptr;

  [[nodiscard]] bool exists() const { return device != nullptr || host != nullptr; }
};

struct ReduceOps {
  Ops<float> f32;
  Ops<double> f64;
};

using ReduceVariant = Variant<ReduceOps>;

template <class T>
[[nodiscard]] const Ops<T>& ops(const ReduceVariant& v) {
  if constexpr (sizeof(T) == 4) {
    return v.launch.f32;
  } else {
    return v.launch.f64;
  }
}

// Registered variants in teaching order; the reference ("cub") first.
[[nodiscard]] std::span<const ReduceVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const ReduceVariant& find(std::string_view name);

// Scratch a device variant needs for n elements of T; 0 for host variants.
template <class T>
[[nodiscard]] std::size_t workspace_bytes(const ReduceVariant& variant, std::size_t n) {
  const Ops<T>& o = ops<T>(variant);
  return o.device != nullptr ? o.workspace_bytes(n) : 0;
}

// Runs a device variant on ctx.stream. The workspace holds at least workspace_bytes<T>(n)
// bytes of device memory, any content on entry: scratch, reusable by the next call on the same
// stream ("single_pass" keeps a counter there and zeroes it itself, with a 4-byte
// cudaMemsetAsync on the stream). Throws, before any work is queued, std::invalid_argument for
// a host-only variant, a missing workspace or a null pointer, and for the variants that add on
// the host (global_memory, shared_static, shared_dynamic: they wait for the stream) while the
// stream is being captured into a CUDA graph; and CudaError (smemlab/error.hpp) naming this
// routine when a CUDA call fails. Safe to call from several threads at once, each with its own
// stream and workspace, and to capture into a graph: docs/library-contract.md.
template <class T>
void sum(const ReduceVariant& variant, const Args<T>& args, const LaunchContext& ctx);

// The reference: Neumaier-compensated summation in double, and the sum of magnitudes that
// scales the error: |s - sum| / abs_sum is what every variant is judged by.
struct ReferenceSum {
  double sum = 0.0;
  double abs_sum = 0.0;
};
template <class T>
[[nodiscard]] ReferenceSum reference_sum(const T* in, std::size_t n);

// Largest accepted |s - reference| / sum|x| for n elements of type T; see the definition.
template <class T>
[[nodiscard]] double tolerance(std::size_t n);

}  // namespace smemlab::reduce
