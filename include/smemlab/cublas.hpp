#pragma once
// What a launch needs besides its arguments: the caller's stream, and a cuBLAS handle for the
// variants that call cuBLAS.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace smemlab {

// Owns a cuBLAS handle set to plain FP32 math (no TF32 tensor cores).
class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  [[nodiscard]] cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

struct LaunchContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;  // needed only by the cuBLAS reference variants
};

}  // namespace smemlab
