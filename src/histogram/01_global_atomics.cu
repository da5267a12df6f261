// 01 — global atomics: every sample adds one to its bin in global memory (atomicAdd, carried out
// in L2). The simplest correct histogram; every sample is a read-modify-write at L2, and samples
// of the same bin wait for each other there. Should buy: correctness at any bin count; as fast
// as L2's atomic units allow, which on all-equal data is one bin's unit for the whole array.
#include "histogram/drivers.hpp"
#include "histogram/histogram_device.cuh"
#include "histogram/variants.hpp"

namespace smemlab::histogram::detail {
namespace {

template <class T>
struct GlobalAtomics {
  static void run(const Args<T>& a, cudaStream_t stream) { launch_global_atomics(a, stream); }
};

}  // namespace

HistogramVariant global_atomics_variant() {
  return {{.family = "histogram",
           .name = "global_atomics",
           .description = "one atomicAdd a sample on the counts in global memory",
           .technique = "global atomics: correct at any bin count, contended at L2",
           .smem = SmemKind::none,
           .why_no_model = "uses no shared memory"},
          both_types<GlobalAtomics>()};
}

}  // namespace smemlab::histogram::detail
