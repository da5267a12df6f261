#pragma once
// What every family's launch takes besides its arguments struct: the caller's stream, and a
// cuBLAS handle for the variants that call cuBLAS (smemlab/cublas.hpp makes one).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace smemlab {

struct LaunchContext {
  cudaStream_t stream = nullptr;
  cublasHandle_t cublas = nullptr;  // needed only by the cuBLAS reference variants
};

}  // namespace smemlab
