#pragma once
// Times device work on one stream with a pair of CUDA events.
#include <cuda_runtime_api.h>

namespace smemlab {

class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  // Waits for the stop event; milliseconds between the two events.
  [[nodiscard]] float elapsed_ms() const;

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace smemlab
