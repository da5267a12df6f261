#pragma once
// Histogram: counts of samples per bin, on the caller's stream. Bytes (std::uint8_t) go one bin
// per value, 256 bins. Floats are binned evenly: `bins` bins over [lower, upper), sample x into
// bin min(bins - 1, floor((x - lower) * scale)) with scale = bins / (upper - lower) rounded to
// float, the product rounded to float (no fused multiply-add); samples outside [lower, upper)
// and NaNs are dropped, and counted. Counts are 32-bit, so n < 2^32: every count is exact.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::histogram {

template <class T>
struct Args {
  const T* samples = nullptr;
  std::size_t n = 0;                // < 2^32
  std::uint32_t* counts = nullptr;  // `bins` counters in device memory, overwritten
  int bins = 256;                   // bytes: 256; floats: 1 to 65,536
  float lower = 0.0F;               // floats: the range [lower, upper)
  float upper = 1.0F;
  std::uint32_t* dropped = nullptr;  // one counter: samples outside the range (bytes: 0); may be null
  void* workspace = nullptr;         // workspace_bytes<T>(variant, n, bins) bytes, any content
};

// The largest bin count of a float histogram.
inline constexpr int kMaxBins = 65536;

// Throws std::invalid_argument naming the first violated condition.
template <class T>
void validate(const Args<T>& args);

template <class T>
struct Ops {
  std::size_t (*workspace_bytes)(std::size_t n, int bins) = nullptr;
  void (*device)(const Args<T>& args, cudaStream_t stream) = nullptr;
};

struct HistogramOps {
  Ops<std::uint8_t> u8;
  Ops<float> f32;
};

using HistogramVariant = Variant<HistogramOps>;

template <class T>
[[nodiscard]] const Ops<T>& ops(const HistogramVariant& v) {
  if constexpr (std::is_same_v<T, float>) {
    return v.launch.f32;
  } else {
    return v.launch.u8;
  }
}

// Registered variants in teaching order; the reference ("cub") first.
[[nodiscard]] std::span<const HistogramVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const HistogramVariant& find(std::string_view name);

template <class T>
[[nodiscard]] std::size_t workspace_bytes(const HistogramVariant& variant, std::size_t n, int bins) {
  return ops<T>(variant).workspace_bytes(n, bins);
}

// Validates, then launches asynchronously on ctx.stream; counts (and dropped) are overwritten,
// not added to. Throws, before any work is queued, std::invalid_argument for bad arguments, a
// missing workspace, or a variant that cannot run on this device (why_unavailable); CudaError
// (smemlab/error.hpp) naming this routine when a CUDA call fails. Safe to call from several
// threads at once, each with its own stream and workspace, and to capture into a CUDA graph:
// docs/library-contract.md.
template <class T>
void run(const HistogramVariant& variant, const Args<T>& args, const LaunchContext& ctx);

// The bin of a float sample as the kernels compute it, or -1 when it is dropped: the reference.
[[nodiscard]] int bin_of(float x, float lower, float upper, int bins);

// What every variant is checked against: the counts the rule gives, on the host.
struct Counts {
  std::vector<std::uint32_t> bins;
  std::uint32_t dropped = 0;
  bool operator==(const Counts&) const = default;
};
// Bytes: 256 bins, the range unused; floats: `bins` bins over [lower, upper).
template <class T>
[[nodiscard]] Counts reference_counts(std::span<const T> samples, int bins, float lower, float upper);

}  // namespace smemlab::histogram
