#pragma once
// Error checking for CUDA and cuBLAS calls: every failure becomes an exception that names
// the call, the file and the line, so a failed launch deep in a sweep is reported, not lost.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace smemlab {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input from the user: reported as one line, exit status 2, before any device work.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

}  // namespace smemlab

#define SMEMLAB_CUDA_CHECK(call)                                              \
  do {                                                                        \
    const cudaError_t smemlab_status_ = (call);                               \
    if (smemlab_status_ != cudaSuccess)                                       \
      ::smemlab::throw_cuda_error(smemlab_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define SMEMLAB_CUBLAS_CHECK(call)                                              \
  do {                                                                          \
    const cublasStatus_t smemlab_status_ = (call);                              \
    if (smemlab_status_ != CUBLAS_STATUS_SUCCESS)                               \
      ::smemlab::throw_cublas_error(smemlab_status_, #call, __FILE__, __LINE__); \
  } while (0)

// After every kernel launch: catches bad configurations (too much shared memory, too many
// threads) at the launch site instead of at some later synchronisation.
#define SMEMLAB_LAUNCH_CHECK() SMEMLAB_CUDA_CHECK(cudaGetLastError())
