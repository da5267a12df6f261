#pragma once
// Prefix sum (scan): out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1]
// (exclusive, out[0] = 0), for std::int32_t, which wraps modulo 2^32 as unsigned arithmetic
// does, and float; any n >= 0 (64-bit counts: past 2^32 too), in place (out == in) or out of
// place, on the caller's stream. Every variant adds in an order fixed by n alone, so a float
// scan gives the same bits on every run.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::scan {

enum class Kind { inclusive, exclusive };

template <class T>
struct Args {
  const T* in = nullptr;
  T* out = nullptr;  // n elements: the same pointer as in, or not overlapping it
  std::size_t n = 0;
  Kind kind = Kind::inclusive;
  void* workspace = nullptr;  // workspace_bytes<T>(variant, n) bytes; see run()
};

// Throws std::invalid_argument naming the first violated condition.
template <class T>
void validate(const Args<T>& args);

// One element type's entry point of a variant: the scan of in[0, n) into out on `stream`.
template <class T>
struct Ops {
  std::size_t (*workspace_bytes)(std::size_t n) = nullptr;
  void (*device)(const T* in, T* out, std::size_t n, Kind kind, void* workspace,
                 cudaStream_t stream) = nullptr;
};

struct ScanOps {
  Ops<std::int32_t> i32;
  Ops<float> f32;
};

using ScanVariant = Variant<ScanOps>;

template <class T>
[[nodiscard]] const Ops<T>& ops(const ScanVariant& v) {
  if constexpr (std::is_same_v<T, float>) {
    return v.launch.f32;
  } else {
    return v.launch.i32;
  }
}

// Registered variants in teaching order; the reference ("cub") first.
[[nodiscard]] std::span<const ScanVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const ScanVariant& find(std::string_view name);

template <class T>
[[nodiscard]] std::size_t workspace_bytes(const ScanVariant& variant, std::size_t n) {
  return ops<T>(variant).workspace_bytes(n);
}

// Validates, then launches asynchronously on ctx.stream. The workspace holds at least
// workspace_bytes<T>(n) bytes of device memory, any content on entry: the variants that keep
// flags or counters there (decoupled_lookback) clear them themselves, on the stream, within the
// call. Throws, before any work is queued, std::invalid_argument for bad arguments or a missing
// workspace; CudaError (smemlab/error.hpp) naming this routine when a CUDA call fails. Safe to
// call from several threads at once, each with its own stream and workspace, and to capture
// into a CUDA graph: docs/library-contract.md.
template <class T>
void run(const ScanVariant& variant, const Args<T>& args, const LaunchContext& ctx);

// The reference a float scan is checked against: each prefix in double with Neumaier's
// compensation, and the largest |prefix| up to it, which scales the accepted error.
struct ReferenceCheck {
  bool verified = false;
  double max_error = 0.0;     // the largest |out[i] - prefix[i]| / (u * scale[i]); 0 for integers
  std::size_t first_bad = 0;  // the first index out of tolerance (n when none)
};
// Checks a scan's output element by element: integers exactly (modulo 2^32), floats within
// tolerance<float>(n) of the compensated prefix, scaled as described at its definition.
template <class T>
[[nodiscard]] ReferenceCheck check_scan(std::span<const T> in, std::span<const T> out, Kind kind);

// The accepted error of a float prefix, in units of u * scale (u = 2^-24): see the definition.
[[nodiscard]] double tolerance(std::size_t n);

}  // namespace smemlab::scan
