#include "smemlab/error.hpp"

#include <fmt/format.h>

namespace smemlab {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("{} failed at {}:{}: {} ({})", call, file, line,
                              cudaGetErrorString(status), cudaGetErrorName(status)));
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("{} failed at {}:{}: {} ({})", call, file, line,
                              cublasGetStatusString(status), static_cast<int>(status)));
}

}  // namespace smemlab
