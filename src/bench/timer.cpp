#include "bench/timer.hpp"

#include "smemlab/error.hpp"

namespace smemlab {

EventTimer::EventTimer() {
  SMEMLAB_CUDA_CHECK(cudaEventCreate(&start_));
  try {
    SMEMLAB_CUDA_CHECK(cudaEventCreate(&stop_));
  } catch (...) {
    cudaEventDestroy(start_);
    throw;
  }
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) { SMEMLAB_CUDA_CHECK(cudaEventRecord(start_, stream)); }

void EventTimer::stop(cudaStream_t stream) { SMEMLAB_CUDA_CHECK(cudaEventRecord(stop_, stream)); }

float EventTimer::elapsed_ms() const {
  SMEMLAB_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0F;
  SMEMLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace smemlab
