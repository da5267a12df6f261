// The bank microbenchmark in the benchmark: for each stride, the time per warp-wide shared
// access of each width, as warp accesses per clock per SM, beside the analyzer's prediction.
// A conflict-free 4-byte access can run at one a clock; an n-wavefront access at 1/n.
#include <fmt/format.h>

#include "bench/families.hpp"
#include "smemlab/banks.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"

namespace smemlab {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 4;  // 32 warps per SM keep the pipe busy
constexpr int kIterations = 512;
constexpr int kMaxStride = 256;

std::vector<BenchRow> run(const BenchFamily& self, const Shape& shape, DType type,
                          std::span<const std::string_view> variant_names, const BenchContext& ctx) {
  const auto stride = static_cast<int>(count(shape));
  const int blocks = ctx.device.sms * kBlocksPerSm;
  const int threads_total = blocks * kThreads;
  DeviceBuffer<unsigned int> out(static_cast<std::size_t>(threads_total));
  std::vector<unsigned int> got(out.size());

  std::vector<const banks::AccessVariant*> chosen;
  for (const auto& v : banks::access_variants())
    if (v.info.reference) chosen.push_back(&v);
  for (const auto name : variant_names)
    for (const auto& v : banks::access_variants())
      if (v.info.name == name) chosen.push_back(&v);

  // Warp accesses per SM over clocks: work per run over (seconds x clock rate).
  const double warp_accesses = static_cast<double>(blocks) * (kThreads / banks::kWarp) * kIterations * banks::kAccessUnroll;
  const double clock_hz = ctx.device.sm_clock_khz * 1e3;
  std::vector<Candidate> candidates;
  for (const auto* v : chosen) {
    const int s = v->fixed_stride_one ? 1 : stride;
    if (banks::access_kernel_smem(v->width, s) > ctx.device.smem_per_block_optin) continue;
    const auto launch = [&out, v, s, blocks, &ctx] {
      banks::launch_access_kernel(v->width, s, kIterations, blocks, kThreads, out.data(), ctx.stream);
    };
    const banks::Access access{banks::Expression::parse(fmt::format("tx*{}", s)), {}, v->width, false, 0};
    const auto predicted = banks::analyze(access);
    candidates.push_back(
        {.name = std::string(v->info.name),
         .check = [&, v, s, launch] {
           out.poison(ctx.stream);
           launch();
           SMEMLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));
           out.download(got, ctx.stream);
           std::size_t wrong = 0;
           for (int t = 0; t < threads_total; ++t)
             wrong += got[static_cast<std::size_t>(t)] != banks::expected_access_sum(v->width, s, t % banks::kWarp, kIterations);
           const double share = static_cast<double>(wrong) / threads_total;
           return Check{wrong == 0, share, share, "exact sums"};
         },
         .launch = launch,
         .dtype_label = fmt::format("{}B", v->width),
         // One wavefront of 128 bytes a clock is the shared-memory pipe's peak.
         .rate = Rate{warp_accesses / ctx.device.sms / clock_hz, "access/clk/SM",
                      1.0 / static_cast<double>(predicted.ideal())},
         .predicted_wavefronts = static_cast<double>(predicted.wavefronts())});
  }
  const Workload work{.size = std::to_string(stride), .rate = {}};
  return measure(self.name(), type, work, candidates, ctx);
}

}  // namespace

const BenchFamily& banks_family() {
  static const BenchFamily family({.name = "banks",
                                   .form = SizeForm::count,
                                   .max_dim = kMaxStride,
                                   .sizes = {"1", "2", "4", "8", "32", "33"},
                                   .full_sizes = [] {
                                     std::vector<std::string> strides;
                                     for (int s = 1; s <= 64; ++s) strides.push_back(std::to_string(s));
                                     return strides;
                                   }(),
                                   .explain_size = "32",
                                   .variants = [] {
                                     std::vector<VariantInfo> out;
                                     for (const auto& v : banks::access_variants()) out.push_back(v.info);
                                     return out;
                                   },
                                   // the per-thread sums; shared memory is on chip
                                   .device_bytes = [](const Shape&, DType) { return std::size_t{64} << 20; },
                                   .run = run});
  return family;
}

}  // namespace smemlab
