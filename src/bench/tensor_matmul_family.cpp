// The tensor-core matmul family in the benchmark: random inputs rounded to the input type,
// cuBLAS GemmEx with the same types as the reference, every output checked against an FP64
// CPU product of the very inputs the kernels read (or against cuBLAS where the CPU would take
// too long), then timed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <cstddef>

#include "bench/device_memory.hpp"
#include "bench/families.hpp"
#include "bench/gemm_check.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/tensor_matmul.hpp"

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

template <class Storage>
std::vector<BenchRow> run_typed(const BenchFamily& self, const GemmShape& d, DType type,
                                std::span<const std::string_view> names, const BenchContext& ctx) {
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
  tensor_matmul::GemmArgs args{.input = type, .m = d.m, .n = d.n, .k = d.k, .a = a.data(), .lda = d.k,
                               .b = b.data(), .ldb = d.n, .c = c.data(), .ldc = d.n};
  DeviceBuffer<std::byte> workspace(tensor_matmul::workspace_bytes(args));
  args.workspace = workspace.data();
  args.workspace_size = workspace.size();

  const CublasHandle cublas;
  const LaunchContext launch_ctx{ctx.stream, cublas.get()};
  std::vector<GemmRun> runs;
  const auto add = [&](const tensor_matmul::TensorVariant& v) {
    runs.push_back({std::string(v.info.name), [&v, &args, &launch_ctx] { tensor_matmul::gemm(v, args, launch_ctx); }});
  };
  add(tensor_matmul::find("cublas"));
  for (const auto name : names) {
    const auto& v = tensor_matmul::find(name);
    if (!v.info.runs(type)) continue;  // the wgmma steps take 2-byte inputs only
    if (const std::string why = v.info.why_unavailable(); !why.empty()) {
      ctx.progress(fmt::format("{}: skipped, {}", v.info.id(), why), false);
      continue;
    }
    add(v);
  }
  const Workload work{.size = gemm_size_label(d),
                      .rate = Rate::tensor_flops(2.0 * d.m * d.n * d.k, ctx.device, type)};
  const GemmReference cpu(d.m, d.n, d.k, to_float(a, mk, ctx.stream), to_float(b, kn, ctx.stream));
  return measure_gemms(self.name(), type, work, cpu, tensor_matmul::relative_tolerance(type, d.k), c, runs, ctx);
}

// A and B in the input type, C in float, and the workspace of unaligned operands.
std::size_t device_bytes(const Shape& shape, DType type) {
  const GemmShape g = gemm_shape(shape);
  const auto m = static_cast<std::size_t>(g.m);
  const auto n = static_cast<std::size_t>(g.n);
  const auto k = static_cast<std::size_t>(g.k);
  return 2 * (m * k + k * n) * dtype_bytes(type) + m * n * sizeof(float) + (std::size_t{1} << 20);
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
         if (!tensor_matmul::device_supported())
           throw UsageError(fmt::format("{} needs compute capability 8.0 or later (mma.sync with bf16, cp.async); "
                                        "{} is {}.{}",
                                        self.name(), ctx.device.name, ctx.device.cc_major, ctx.device.cc_minor));
         const GemmShape d = gemm_shape(shape);
         switch (type) {
           case DType::bf16: return run_typed<__nv_bfloat16>(self, d, type, names, ctx);
           case DType::f16: return run_typed<__half>(self, d, type, names, ctx);
           default: return run_typed<float>(self, d, type, names, ctx);
         }
       }});
  return family;
}

}  // namespace smemlab
