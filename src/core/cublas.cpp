#include "smemlab/cublas.hpp"

#include "smemlab/error.hpp"

namespace smemlab {

CublasHandle::CublasHandle() {
  SMEMLAB_CUBLAS_CHECK(cublasCreate(&handle_));
  // CUBLAS_DEFAULT_MATH never uses TF32 tensor cores: FP32 arithmetic on CUDA cores.
  SMEMLAB_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
}

CublasHandle::~CublasHandle() { cublasDestroy(handle_); }

}  // namespace smemlab
