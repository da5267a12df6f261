#pragma once
// Error checking for CUDA and cuBLAS calls: every failure becomes an exception that names
// the call, the file and the line, so a failed launch deep in a sweep is reported, not lost.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace smemlab {

// A CUDA or cuBLAS call failed inside a routine. The message names the routine (say
// "matmul::gemm(autotuned)"), the call, and the error's CUDA name and text. A sticky error (a
// kernel fault: an illegal address, a trap, a failed assertion) leaves the device's context
// unusable for the rest of the process; it is reported as such, possibly by a later call than
// the one whose kernel faulted, and smemlab never clears it.
class CudaError : public std::runtime_error {
 public:
  explicit CudaError(const std::string& message, cudaError_t code = cudaSuccess, bool sticky = false)
      : std::runtime_error(message), code_(code), sticky_(sticky) {}
  // The CUDA error; cudaSuccess where the failure was not a CUDA runtime error (cuBLAS, no device).
  [[nodiscard]] cudaError_t code() const { return code_; }
  [[nodiscard]] bool sticky() const { return sticky_; }

 private:
  cudaError_t code_;
  bool sticky_;
};

// Whether an error leaves the context unusable (every later CUDA call fails with it).
[[nodiscard]] bool is_sticky(cudaError_t status);

// Runs call(); a CudaError it throws is thrown again with `routine` named first.
template <class Call>
void in_routine(const std::string& routine, Call&& call) {
  try {
    call();
  } catch (const CudaError& e) {
    throw CudaError(routine + ": " + e.what(), e.code(), e.sticky());
  }
}

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
