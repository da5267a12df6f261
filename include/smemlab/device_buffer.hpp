#pragma once
// Owning device allocation: freed on scope exit, move-only, with checked host transfers; and an
// owning stream.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <utility>

#include "smemlab/error.hpp"

namespace smemlab {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) SMEMLAB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);  // no throw from a destructor
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }

  [[nodiscard]] T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return count_ * sizeof(T); }

  // Blocking transfers on `stream`: the host span is valid again when they return.
  void upload(std::span<const T> host, cudaStream_t stream) {
    check_extent(host.size());
    SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(data_, host.data(), host.size_bytes(),
                                       cudaMemcpyHostToDevice, stream));
    SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void download(std::span<T> host, cudaStream_t stream) const {
    check_extent(host.size());
    SMEMLAB_CUDA_CHECK(cudaMemcpyAsync(host.data(), data_, host.size_bytes(),
                                       cudaMemcpyDeviceToHost, stream));
    SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  // Every byte 0xFF: a NaN for float and double, so an output element nobody wrote is caught.
  void poison(cudaStream_t stream) {
    SMEMLAB_CUDA_CHECK(cudaMemsetAsync(data_, 0xFF, bytes(), stream));
  }

 private:
  void check_extent(std::size_t n) const {
    if (n != count_) throw std::length_error("DeviceBuffer transfer size does not match the buffer");
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// An owning non-blocking stream, destroyed on scope exit; neither copied nor moved.
class Stream {
 public:
  Stream() { SMEMLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }  // no throw from a destructor
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace smemlab
