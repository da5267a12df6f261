#pragma once
// A cuBLAS handle for the reference variants' LaunchContext.
#include <cublas_v2.h>

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

}  // namespace smemlab
