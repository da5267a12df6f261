// 04 — one histogram across a thread-block cluster (Hopper). Changed from 02: where one copy of
// the bins does not fit in a block's shared memory, the blocks of a cluster (up to 8, the bins
// split evenly between them) keep one copy together in their distributed shared memory: a
// sample's bin lives in the shared memory of block bin / slice of the cluster, and the atomic
// goes there over the SM-to-SM network. Should buy: the 65,536 bins that 02 and 03 must count
// with global atomics counted at shared-memory speed; where one block holds all the bins (256,
// 1,024, 16,384), a cluster of one, which is 02.
#include <cooperative_groups.h>

#include <string>

#include "histogram/histogram_device.cuh"
#include "histogram/models.hpp"
#include "histogram/variants.hpp"

namespace smemlab::histogram::detail {
namespace {

namespace cg = cooperative_groups;

constexpr std::size_t kSliceBudget = 64 << 10;  // bytes of bins a block keeps
constexpr int kMaxCluster = 8;                  // the portable cluster size

// Block r of a cluster keeps bins [r << slice_shift, (r + 1) << slice_shift).
template <class T>
__global__ void __launch_bounds__(kThreads)
    cluster_kernel(const T* __restrict__ samples, std::size_t n, EvenBins bins, int slice_shift,
                   std::uint32_t* counts, std::uint32_t* dropped) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ std::uint32_t slice[];
  const cg::cluster_group cluster = cg::this_cluster();
  const int slice_bins = 1 << slice_shift;
  for (int i = threadIdx.x; i < slice_bins; i += kThreads) slice[i] = 0;
  cluster.sync();  // every slice cleared before any block adds to it
  unsigned mine = 0;
  for_each_sample(samples, n, [&](T x) {
    const int b = bin_of_sample(x, bins);
    if (b >= 0) {
      std::uint32_t* const owner = cluster.map_shared_rank(slice, static_cast<unsigned>(b >> slice_shift));
      atomicAdd(owner + (b & (slice_bins - 1)), 1U);
    } else {
      ++mine;
    }
  });
  cluster.sync();  // every block's additions done before a slice is read
  const int first = static_cast<int>(cluster.block_rank()) << slice_shift;
  for (int i = threadIdx.x; i < slice_bins && first + i < bins.bins; i += kThreads)
    if (slice[i] != 0) atomicAdd(counts + first + i, slice[i]);
  add_dropped(mine, dropped);
#else
  __trap();  // never launched: why_no_clusters() refuses code built for older GPUs
#endif
}

template <class T>
struct Cluster {
  static void run(const Args<T>& a, cudaStream_t stream) {
    const int bins = bin_count(a);
    int cluster = 1;
    while (static_cast<std::size_t>(bins) * sizeof(std::uint32_t) > kSliceBudget * cluster &&
           cluster < kMaxCluster)
      cluster *= 2;
    int slice_shift = 0;
    while ((cluster << slice_shift) < bins) ++slice_shift;
    clear_counts(a, stream);
    if (a.n == 0) return;
    const std::size_t smem = (std::size_t{1} << slice_shift) * sizeof(std::uint32_t);
    smemlab::detail::allow_dynamic_smem(cluster_kernel<T>, shared_memory_optin());
    const unsigned blocks = streaming_grid(cluster_kernel<T>, a.n * sizeof(T), kThreads, smem);
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(static_cast<unsigned>(ceil_div(blocks, cluster) * cluster));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = static_cast<unsigned>(cluster);
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    SMEMLAB_CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_kernel<T>, a.samples, a.n, bins_of(a), slice_shift,
                                          a.counts, a.dropped));
  }
};

// Empty where the kernel can run: a device of compute capability 9.0 or later, and a build with
// code for it (a build for older GPUs only compiles the kernel's body out).
std::string why_no_clusters() {
  int device = 0;
  int major = 0;
  cudaFuncAttributes compiled{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return "needs a GPU of compute capability 9.0 (thread-block clusters): no CUDA device";
  }
  if (major < 9) return "thread-block clusters and distributed shared memory need compute capability 9.0";
  if (cudaFuncGetAttributes(&compiled, cluster_kernel<float>) != cudaSuccess || compiled.ptxVersion < 90) {
    (void)cudaGetLastError();
    return "built without code for compute capability 9.0 (-DCMAKE_CUDA_ARCHITECTURES=90)";
  }
  return {};
}

}  // namespace

HistogramVariant cluster_variant() {
  return {
      {.family = "histogram",
       .name = "cluster",
       .description = "one histogram split across the shared memory of a cluster's blocks",
       .technique = "distributed shared memory: atomics in another block's shared memory",
       .smem = SmemKind::dynamic_alloc,
       .model = models::cluster,
       .unavailable = why_no_clusters},
      both_types<Cluster>()};
}

}  // namespace smemlab::histogram::detail
