#pragma once
// Access models of the attention steps (smemlab/access_model.hpp) at a size of the benchmark
// family: sequence length N, 16,384 tokens a batch. The benchmark runs five cases at a size, and
// Nsight Compute's figure for a kernel is its launch with the most shared-memory wavefronts; so
// each model describes that launch among the cases of head dim 128 (the kernels of head dim 64
// are other instantiations): 16 heads without and with a causal mask, and 32 query heads over 8
// kv heads with one. Counted per block and averaged over the blocks, whose numbers of K/V tiles
// differ under a causal mask.
#include "smemlab/access_model.hpp"

namespace smemlab::attention::models {

AccessModel fused_tile(const smemlab::Shape& s, DType type);
AccessModel split_rows(const smemlab::Shape& s, DType type);
AccessModel swizzled_pipeline(const smemlab::Shape& s, DType type);
AccessModel split_kv(const smemlab::Shape& s, DType type);

}  // namespace smemlab::attention::models
