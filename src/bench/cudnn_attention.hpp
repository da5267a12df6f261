#pragma once
// cuDNN's fused attention as a reference for the attention benchmark: one plan a shape, built
// through cuDNN's graph (backend) API from the operations its fused flash-attention engine
// recognises (S = Q K^T, the scale, a causal mask, a softmax that also writes the log-sum-exp,
// O = P V). Built only where cuDNN was found when the project was configured; elsewhere
// why_unavailable() says so and nothing else may be called.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "smemlab/attention.hpp"

namespace smemlab {

class CudnnAttention {
 public:
  // Empty where cuDNN can be used.
  static std::string why_unavailable();

  // The plan for a's shape, type and strides (its pointers are not read). Throws
  // std::runtime_error with cuDNN's message where no engine takes the graph.
  explicit CudnnAttention(const attention::Args& a);
  ~CudnnAttention();
  CudnnAttention(const CudnnAttention&) = delete;
  CudnnAttention& operator=(const CudnnAttention&) = delete;

  // O and the log-sum-exps of a's tensors, on `stream`.
  void run(const attention::Args& a, cudaStream_t stream);

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace smemlab
