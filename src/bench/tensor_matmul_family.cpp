// The tensor-core matmul family in the benchmark: random inputs rounded to the input type,
// cuBLAS GemmEx with the same types as the reference, every output checked against an FP64
// CPU product of the very inputs the kernels read (or against cuBLAS where the CPU would take
// too long), then timed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <functional>

#include "bench/device_memory.hpp"
#include "bench/families.hpp"
#include "bench/gemm_check.hpp"
#include "core/text.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"
#include "smemlab/tensor_matmul.hpp"
#include "tensor_matmul/partial_sums.hpp"
#include "tensor_matmul/repack.hpp"
#include "tensor_matmul/tensor_map.hpp"
#include "tensor_matmul/tuning.hpp"

namespace smemlab {
namespace {

template <class Storage>
std::vector<float> to_float(const DeviceBuffer<Storage>& device, std::size_t count, cudaStream_t stream) {
  std::vector<Storage> raw(count);
  device.download(raw, stream);
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(raw[i]);  // exact
  return out;
}

// A launch to verify and time: a registered variant, or a kernel choice of the default call.
struct TensorCandidate {
  std::string name;
  std::function<void(const tensor_matmul::GemmArgs&, const LaunchContext&)> launch;
  int ranges = 1;  // of K, for a kernel choice: its partial sums need room in the workspace
};

// The candidates of the tuning sweep: every kernel the default call can choose, K whole (k1)
// and, for the kernels that divide it, in 2 to 64 ranges, named KERNEL/kRANGES.
constexpr std::array kSweptRanges{1, 2, 4, 8, 16, 32, 64};

std::vector<std::pair<std::string, tensor_matmul::KernelChoice>> kernel_candidates() {
  std::vector<std::pair<std::string, tensor_matmul::KernelChoice>> out;
  for (const auto& s : tensor_matmul::kernel_shapes())
    for (const int ranges : kSweptRanges) {
      if (ranges > 1 && !s.splits_k) break;
      out.emplace_back(fmt::format("{}/k{}", s.name, ranges), tensor_matmul::KernelChoice{s.name, ranges});
    }
  return out;
}

template <class Storage>
std::vector<BenchRow> run_typed(const BenchFamily& self, const GemmShape& d, DType type,
                                std::span<const TensorCandidate> candidates, const BenchContext& ctx) {
  const auto mk = static_cast<std::size_t>(d.m) * d.k;
  const auto kn = static_cast<std::size_t>(d.k) * d.n;
  ctx.progress(fmt::format("{} {} {}: inputs and reference", self.name(), dtype_name(type), gemm_size_label(d)), false);
  DeviceBuffer<Storage> a(mk);
  DeviceBuffer<Storage> b(kn);
  DeviceBuffer<float> c(static_cast<std::size_t>(d.m) * d.n);
  fill_uniform(a.data(), mk, 1, -1.0F, 1.0F, ctx.stream);
  fill_uniform(b.data(), kn, 2, -1.0F, 1.0F, ctx.stream);

  // Timed runs use alpha = 1, beta = 0 and dense operands (unaligned rows when K or N is not
  // a multiple of 16 bytes); the variants that repack such operands get their workspace here,
  // outside the timed region.
  // Operands stored transposed (--transpose) hold the same values read as their transposes.
  const bool ta = ctx.options.transpose_a;
  const bool tb = ctx.options.transpose_b;
  tensor_matmul::GemmArgs args{.input = type, .m = d.m, .n = d.n, .k = d.k, .a = a.data(), .lda = ta ? d.m : d.k,
                               .b = b.data(), .ldb = tb ? d.k : d.n, .c = c.data(), .ldc = d.n, .transpose_a = ta,
                               .transpose_b = tb};
  // Room for the registered variants, and for the partial sums of the kernel choices.
  int ranges = 1;
  for (const TensorCandidate& c : candidates) ranges = std::max(ranges, c.ranges);
  DeviceBuffer<std::byte> workspace(tensor_matmul::workspace_bytes(args) +
                                    tensor_matmul::detail::partial_sums_bytes(args, ranges) +
                                    tensor_matmul::detail::kWorkspaceAlignment);
  args.workspace = workspace.data();
  args.workspace_size = workspace.size();

  const CublasHandle cublas;
  const LaunchContext launch_ctx{ctx.stream, cublas.get()};
  std::vector<GemmRun> runs;
  const auto& reference = tensor_matmul::find("cublas");
  runs.push_back({std::string(reference.info.name),
                  [&reference, &args, &launch_ctx] { tensor_matmul::gemm(reference, args, launch_ctx); }});
  for (const TensorCandidate& c : candidates)
    runs.push_back({c.name, [&c, &args, &launch_ctx] { c.launch(args, launch_ctx); }});
  const Workload work{.size = with_operand_layout(gemm_size_label(d), ctx.options),
                      .rate = Rate::tensor_flops(2.0 * d.m * d.n * d.k, ctx.device, type)};
  std::vector<float> a_rows = to_float(a, mk, ctx.stream);  // the reference's row-major operands
  std::vector<float> b_rows = to_float(b, kn, ctx.stream);
  if (ta) a_rows = transposed(a_rows, d.k, d.m);
  if (tb) b_rows = transposed(b_rows, d.n, d.k);
  const GemmReference cpu(d.m, d.n, d.k, a_rows, b_rows);
  return measure_gemms(self.name(), type, work, cpu, tensor_matmul::relative_tolerance(type, d.k), c, runs, ctx);
}

std::vector<BenchRow> run_family(const BenchFamily& self, const Shape& shape, DType type,
                                 std::span<const TensorCandidate> candidates, const BenchContext& ctx) {
  if (!tensor_matmul::device_supported())
    throw UsageError(fmt::format("{} needs compute capability 8.0 or later (mma.sync with bf16, cp.async); "
                                 "{} is {}.{}",
                                 self.name(), ctx.device.name, ctx.device.cc_major, ctx.device.cc_minor));
  const GemmShape d = gemm_shape(shape);
  switch (type) {
    case DType::bf16: return run_typed<__nv_bfloat16>(self, d, type, candidates, ctx);
    case DType::f16: return run_typed<__half>(self, d, type, candidates, ctx);
    default: return run_typed<float>(self, d, type, candidates, ctx);
  }
}

std::vector<VariantInfo> tile_variants() {
  std::vector<VariantInfo> out;
  out.push_back(tensor_matmul::find("cublas").info);
  out.back().family = "tensor-matmul-tiles";
  static const auto candidates = kernel_candidates();
  for (const auto& [name, choice] : candidates)
    out.push_back({.family = "tensor-matmul-tiles",
                   .name = name,
                   .description = "a kernel and ranges of K that the default call (tensor-matmul/auto) can choose",
                   .technique = "kernel / ranges of K",
                   .smem = SmemKind::dynamic_alloc,
                   .dtypes = kTensorInputs,
                   .why_no_model = "a choice of the default call; its kernel's step models it"});
  return out;
}

// `smemlab list --family tensor-matmul-tiles`: what the names say, then each kernel's ranges.
std::string tile_listing(std::size_t columns) {
  std::string out =
      wrap("tensor-matmul-tiles: every tile the default tensor-core call (tensor-matmul/auto) can choose, "
           "timed against cuBLAS; scripts/tune-tensor.sh fits the chooser's rates to them (the call's CUDA-core "
           "products with their own models, tensor-matmul/dot and matmul/skinny, are timed as those variants). "
           "A choice is named "
           "tensor-matmul-tiles/KERNEL/kR: the kernel, with K in R ranges (k1: K whole), such as "
           "tensor-matmul-tiles/wgmma128x256/k8. A run skips the ranges the chooser would not weigh at its "
           "size (ranges under 4 K-steps, items past two waves), and the in-place kernels where the rows are "
           "16-byte aligned (there they are the mma kernels of their tiles).",
           0, columns) +
      "\n\n";
  out += wrap(fmt::format("tensor-matmul-tiles/cublas  {}", tensor_matmul::find("cublas").info.description), 2,
              columns) +
         "\n";
  for (const auto& s : tensor_matmul::kernel_shapes()) {
    std::string ranges;
    for (const int r : kSweptRanges)
      if (r == 1 || s.splits_k) ranges += fmt::format("{}k{}", ranges.empty() ? "" : " ", r);
    out += wrap(fmt::format("{}: {}x{} tiles, {} per SM, {}; {}", s.name, s.bm, s.bn,
                            count_of(s.blocks_per_sm, "block"),
                            s.thin ? "mma.sync, its own ranges of K added in a cluster (compute capability 9.0)"
                            : s.hopper        ? "wgmma (compute capability 9.0)"
                            : s.in_place      ? "mma.sync reading unaligned rows in place"
                                              : "mma.sync",
                            ranges),
                0, columns) +
           "\n";
  }
  return out;
}

// A and B in the input type, C in float, and the workspace: unaligned operands, partial sums.
std::size_t device_bytes(const Shape& shape, DType type) {
  const GemmShape g = gemm_shape(shape);
  const auto m = static_cast<std::size_t>(g.m);
  const auto n = static_cast<std::size_t>(g.n);
  const auto k = static_cast<std::size_t>(g.k);
  // Plus room for split-K's partial sums: two waves of 128 x 256 tiles of floats on 132 SMs.
  constexpr std::size_t kPartialSums = std::size_t{2} * 132 * 128 * 256 * sizeof(float);
  return 2 * (m * k + k * n) * dtype_bytes(type) + m * n * sizeof(float) + kPartialSums + (std::size_t{1} << 20);
}

}  // namespace

const BenchFamily& tensor_matmul_family() {
  static const BenchFamily family(
      {.name = "tensor-matmul",
       .form = SizeForm::gemm,
       // Squares, 4095 and 4097 (rows no longer 16-byte aligned: where cuBLAS slows down), a tall
       // and a wide product.
       .sizes = {"512", "2048", "4096", "4097", "8192"},
       .full_sizes = {"256", "512", "1024", "2048", "4095", "4096", "4097", "8192", "8192x1024x4096",
                      "1024x8192x4096"},
       .explain_size = "4096",
       .dtypes = kTensorInputs,
       .variants = [] { return infos_of(tensor_matmul::variants()); },
       .device_bytes = device_bytes,
       .run = [](const BenchFamily& self, const Shape& shape, DType type, std::span<const std::string_view> names,
                 const BenchContext& ctx) {
         std::vector<TensorCandidate> candidates;
         for (const auto name : names) {
           const auto& v = tensor_matmul::find(name);
           if (!v.info.runs(type)) continue;
           if (const std::string why = v.info.why_unavailable(); !why.empty()) {
             ctx.progress(fmt::format("{}: skipped, {}", v.info.id(), why), false);
             continue;
           }
           candidates.push_back({std::string(name), [&v](const tensor_matmul::GemmArgs& g, const LaunchContext& lc) {
                                   tensor_matmul::gemm(v, g, lc);
                                 }});
         }
         return run_family(self, shape, type, candidates, ctx);
       }});
  return family;
}

const BenchFamily& tensor_matmul_tiles_family() {
  static const BenchFamily family(
      {.name = "tensor-matmul-tiles",
       .form = SizeForm::gemm,
       // The shapes the chooser's rates are fitted to (scripts/tune-tensor.sh); the odd ones (rows
       // not 16-byte aligned) fit the in-place kernels' rates, the last three (a short K under a
       // large C) the tiles' fixed costs and stores.
       .sizes = {"8192x8192x4096", "4096x4096x768", "256x256x65536"},
       .full_sizes = {"8192x8192x4096", "4096x4096x768", "256x256x65536", "2048x2048x2048", "16x8192x8192",
                      "8192x16x8192", "1023x1025x127", "255x513x1021", "1531x1021x2053", "4096x4096x16",
                      "6144x5120x64", "3072x5760x320", "2560x3584x1536"},
       .explain_size = "4096",
       .dtypes = kTensorInputs,
       .in_default_run = false,
       .variants = tile_variants,
       .device_bytes = device_bytes,
       .run = [](const BenchFamily& self, const Shape& shape, DType type, std::span<const std::string_view> names,
                 const BenchContext& ctx) {
         static const auto all = kernel_candidates();
         const bool hopper = tensor_matmul::detail::why_no_wgmma().empty();
         std::vector<TensorCandidate> candidates;
         for (const auto name : names) {
           const auto it = std::find_if(all.begin(), all.end(), [&](const auto& c) { return c.first == name; });
           if (it == all.end()) throw UsageError(fmt::format("unknown tensor-core kernel choice '{}'", name));
           const auto shapes = tensor_matmul::kernel_shapes();
           const auto& kernel = *std::find_if(shapes.begin(), shapes.end(),
                                              [&](const auto& s) { return s.name == it->second.kernel; });
           if (kernel.hopper && !hopper) continue;
           // Only the ranges the chooser weighs at this size, and in-place reads of unaligned rows.
           const GemmShape d = gemm_shape(shape);
           if (kernel.in_place && tensor_matmul::dense_rows_aligned(d.n, d.k, type)) continue;
           if (kernel.swapped && type != DType::tf32) continue;
           const int splits = it->second.splits;
           if (splits > 1 && !tensor_matmul::weighs_split(kernel, splits, d.m, d.n, d.k, type, ctx.device.sms)) continue;
           candidates.push_back({it->first,
                                 [choice = it->second](const tensor_matmul::GemmArgs& g, const LaunchContext& lc) {
                                   tensor_matmul::validate(g);
                                   tensor_matmul::gemm_kernel(choice, g, lc);
                                 },
                                 splits});
         }
         return run_family(self, shape, type, candidates, ctx);
       },
       .listing = tile_listing});
  return family;
}

}  // namespace smemlab
