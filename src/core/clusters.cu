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
  int major = 0;
  int smem_optin = 0;
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, ordinal));
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  if (major < 9) return out;
  // The most shared memory a block may take: one block an SM.
  SMEMLAB_CUDA_CHECK(
      cudaFuncSetAttribute(one_block_an_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin));
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
    SMEMLAB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, one_block_an_sm, &config));
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
