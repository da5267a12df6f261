#include "smemlab/error.hpp"

#include <fmt/format.h>

namespace smemlab {

bool is_sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
    case cudaErrorTensorMemoryLeak:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  const bool sticky = is_sticky(status);
  throw CudaError(fmt::format("{} failed at {}:{}: {} ({}){}", call, file, line, cudaGetErrorName(status),
                              cudaGetErrorString(status),
                              sticky ? "; a sticky error: a kernel on this device faulted, perhaps an earlier "
                                       "one, and the device cannot be used again in this process"
                                     : ""),
                  status, sticky);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("{} failed at {}:{}: {} ({})", call, file, line,
                              cublasGetStatusString(status), static_cast<int>(status)));
}

}  // namespace smemlab
