#pragma once
// Out-of-place transpose: a rows x cols row-major matrix (leading dimension ld_in >= cols) into
// its cols x rows transpose (leading dimension ld_out >= rows), float or double, any size >= 1,
// on the caller's stream.
#include <span>
#include <string_view>

#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::transpose {

template <class T>
struct Args {
  int rows = 0;  // of the input
  int cols = 0;
  const T* in = nullptr;
  int ld_in = 0;  // >= cols
  T* out = nullptr;
  int ld_out = 0;  // >= rows
};

// Throws std::invalid_argument naming the first violated condition.
template <class T>
void validate(const Args<T>& args);

template <class T>
using Launch = void (*)(const Args<T>&, const LaunchContext&);

struct TransposeOps {
  Launch<float> f32 = nullptr;
  Launch<double> f64 = nullptr;
  // The "copy" variant copies instead of transposing: out becomes a dense rows x cols copy of
  // the input (leading dimension cols), which fits where the transpose would go. It is the
  // bandwidth ceiling the transposes are measured against.
  bool copies = false;
};

using TransposeVariant = Variant<TransposeOps>;

template <class T>
[[nodiscard]] Launch<T> launch_of(const TransposeVariant& v) {
  if constexpr (sizeof(T) == 4) {
    return v.launch.f32;
  } else {
    return v.launch.f64;
  }
}

// Registered variants in teaching order; the reference ("cublas") first.
[[nodiscard]] std::span<const TransposeVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const TransposeVariant& find(std::string_view name);

// Validates, then launches asynchronously on ctx.stream.
// Throws, before any work is queued, std::invalid_argument for bad arguments; and
// CudaError (smemlab/error.hpp) naming this routine when a CUDA or cuBLAS call fails. Safe to
// call from several threads at once, each with its own stream and workspace, and to capture
// into a CUDA graph: docs/library-contract.md.
template <class T>
void run(const TransposeVariant& variant, const Args<T>& args, const LaunchContext& ctx);

}  // namespace smemlab::transpose
