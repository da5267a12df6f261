#include "core/occupancy.hpp"

#include "core/per_device.hpp"

#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace smemlab::detail {

int resident_blocks(const void* kernel, int threads, std::size_t dynamic_smem) {
  using Key = std::tuple<int, const void*, int, std::size_t>;
  static std::mutex mutex;
  static std::map<Key, int> cache;
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  const Key key{device, kernel, threads, dynamic_smem};
  const std::lock_guard lock(mutex);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  int per_sm = 0;
  SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  const int blocks = std::max(per_sm, 1) * sm_count();
  cache.emplace(key, blocks);
  return blocks;
}

void allow_dynamic_smem(const void* kernel, std::size_t bytes) {
  static std::mutex mutex;
  static std::set<std::pair<int, const void*>> done;
  int device = 0;
  SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard lock(mutex);
  if (done.contains({device, kernel})) return;
  SMEMLAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  done.emplace(device, kernel);
}

}  // namespace smemlab::detail
