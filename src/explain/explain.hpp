#pragma once
// `smemlab explain`: a variant's access model (smemlab/access_model.hpp) at one size and
// type, with what it means for occupancy, rendered as text or JSON.
#include <string>
#include <string_view>

#include "smemlab/dtype.hpp"
#include "smemlab/shape.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::explain {

// What bounds the blocks resident on one SM, by architecture (the CUDA occupancy calculator's
// per-compute-capability limits).
struct ArchLimits {
  int cc_major;
  int cc_minor;
  std::size_t smem_per_sm;               // bytes blocks may use together
  std::size_t smem_reserved_per_block;   // taken by the system from each block's share
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int registers_per_sm;  // allocated per warp in units of 256
};

// The limits of a compute capability; throws UsageError for one the table does not have.
[[nodiscard]] const ArchLimits& arch_limits(int cc_major, int cc_minor);
// "8.0, 8.6, ...": the compute capabilities arch_limits knows.
[[nodiscard]] std::string known_archs();

struct Measurement;

// The report for a variant that runs `type`, at a size in its family's canonical form; with a
// measurement of its kernel, the measured counters beside the prediction.
[[nodiscard]] std::string render(const VariantInfo& variant, const Shape& shape, DType type,
                                 const ArchLimits& arch, bool json, const Measurement* measured = nullptr);

}  // namespace smemlab::explain
