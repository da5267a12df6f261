#include "core/occupancy.hpp"

#include <map>
#include <mutex>
#include <tuple>

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

}  // namespace smemlab::detail
