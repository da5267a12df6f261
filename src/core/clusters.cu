#include "core/clusters.hpp"

#include <cuda_runtime.h>

#include "core/per_device.hpp"
#include "smemlab/error.hpp"

namespace smemlab {
namespace {

// Nothing runs: the occupancy calculator only needs a kernel to size.
__global__ void one_block_an_sm() {}

// Restores the caller's current device.
class DeviceScope {
 public:
  explicit DeviceScope(int ordinal) {
    SMEMLAB_CUDA_CHECK(cudaGetDevice(&previous_));
    SMEMLAB_CUDA_CHECK(cudaSetDevice(ordinal));
  }
  ~DeviceScope() { static_cast<void>(cudaSetDevice(previous_)); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace

ClusterResidency cluster_residency(int ordinal) {
  ClusterResidency out{};
  const DeviceScope scope(ordinal);
  int clusters_launch = 0;
  int smem_optin = 0;
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&clusters_launch, cudaDevAttrClusterLaunch, ordinal));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  if (clusters_launch == 0) return out;
  // The most shared memory a block may take: one block an SM. Where the occupancy calculator
  // cannot answer (no kernel image for this GPU, say), every count stays 0: a report that
  // prints this still prints the rest.
  if (cudaFuncSetAttribute(one_block_an_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return out;
  }
  for (int size = 1; size <= kMaxPortableClusterSize; ++size) {
    cudaLaunchAttribute cluster{};
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim = {static_cast<unsigned>(size), 1, 1};
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(size));
    config.blockDim = dim3(128);
    config.dynamicSmemBytes = static_cast<std::size_t>(smem_optin);
    config.attrs = &cluster;
    config.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, one_block_an_sm, &config) != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      return ClusterResidency{};
    }
    out[size - 1] = clusters * size;
  }
  return out;
}

const ClusterResidency& current_cluster_residency() {
  static detail::PerDevice<ClusterResidency> residency;
  return residency.get([] {
    int device = 0;
    SMEMLAB_CUDA_CHECK(cudaGetDevice(&device));
    return cluster_residency(device);
  });
}

}  // namespace smemlab
