#pragma once
// How many blocks of a kernel that fills an SM (one block an SM, by its shared memory) can be
// resident at once when it is launched in thread-block clusters of 1 to 8 blocks. A cluster's
// blocks must run in one processing cluster (GPC: a group of SMs that share a path to the L2),
// and the GPCs of a GPU hold different numbers of SMs, so the SMs a GPC has beyond a multiple of
// the cluster's size stay idle: on an H100 with 132 SMs, clusters of 4 hold 120 blocks at once,
// of 3 only 117. A grid of more blocks than that runs in more than one wave.
#include <array>

namespace smemlab {

inline constexpr int kMaxPortableClusterSize = 8;  // more is not portable

// Element s - 1: the blocks resident at once in clusters of s. All 0 on a device without
// cluster launches (compute capability below 9.0), or where the occupancy calculator cannot
// answer.
using ClusterResidency = std::array<int, kMaxPortableClusterSize>;

// Of device `ordinal`, from the occupancy calculator (cudaOccupancyMaxActiveClusters).
[[nodiscard]] ClusterResidency cluster_residency(int ordinal);
// Of the current device, asked once per device.
[[nodiscard]] const ClusterResidency& current_cluster_residency();

}  // namespace smemlab
