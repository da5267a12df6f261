// The scan family in the benchmark: int32 over the whole range (so that sums wrap) and floats of
// both signs, CUB as the reference, the device-to-device copy of the same bytes as the ceiling
// (a scan reads n and writes n, as a copy does). Inclusive and exclusive scans are measured
// apart; the exclusive rows carry "exclusive" after the type. Every output is checked, element
// by element, before it is timed: integers exactly, floats against the compensated prefix.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "bench/device_memory.hpp"
#include "bench/families.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"
#include "smemlab/scan.hpp"

namespace smemlab {
namespace {

template <class T>
std::vector<BenchRow> run_typed(const Shape& shape, std::span<const std::string_view> variant_names,
                                const BenchContext& ctx) {
  const auto n = static_cast<std::size_t>(count(shape));
  const std::string label = count_label(count(shape));
  constexpr DType type = dtype_of<T>;
  ctx.progress(fmt::format("scan {} {}: inputs", dtype_name(type), label), false);

  DeviceBuffer<T> in(n);
  if constexpr (std::is_same_v<T, float>) {
    fill_uniform(in.data(), n, 5, -1.0F, 1.0F, ctx.stream);
  } else {
    fill_uniform(in.data(), n, 5, -2147483648.0, 2147483648.0, ctx.stream);
  }
  std::vector<T> host_in(n);
  in.download(host_in, ctx.stream);
  DeviceBuffer<T> out(n);

  std::vector<const scan::ScanVariant*> chosen{&scan::find("cub")};
  for (const auto name : variant_names) chosen.push_back(&scan::find(name));
  std::size_t workspace_bytes = 0;
  for (const auto* v : chosen) workspace_bytes = std::max(workspace_bytes, scan::workspace_bytes<T>(*v, n));
  DeviceBuffer<unsigned char> workspace(workspace_bytes);

  std::vector<BenchRow> rows;
  for (const scan::Kind kind : {scan::Kind::inclusive, scan::Kind::exclusive}) {
    const scan::Args<T> args{in.data(), out.data(), n, kind, workspace.data()};
    std::vector<Candidate> candidates;
    for (const auto* v : chosen) {
      candidates.push_back(
          {.name = std::string(v->info.name),
           .check =
               [&, v] {
                 // The workspace is scratch: garbage on entry must not matter.
                 SMEMLAB_CUDA_CHECK(cudaMemsetAsync(workspace.data(), 0xFF, workspace.bytes(), ctx.stream));
                 out.poison(ctx.stream);
                 scan::run<T>(*v, args, {ctx.stream});
                 std::vector<T> got(n);
                 out.download(got, ctx.stream);
                 const scan::ReferenceCheck c = scan::check_scan<T>(host_in, got, kind);
                 return Check{c.verified, c.max_error, c.max_error,
                              std::is_same_v<T, float> ? "cpu-fp64-compensated" : "cpu-exact-mod-2^32"};
               },
           .launch = [&, v] { scan::run<T>(*v, args, {ctx.stream}); },
           .dtype_label =
               kind == scan::Kind::exclusive ? fmt::format("{} exclusive", dtype_name(type)) : ""});
    }
    const Workload work{.size = label,
                        .rate = Rate::bytes(2.0 * static_cast<double>(n) * sizeof(T), ctx.device),
                        .copy_source = in.data(),
                        .copy_bytes = n * sizeof(T)};
    auto measured = measure("scan", type, work, candidates, ctx);
    rows.insert(rows.end(), measured.begin(), measured.end());
  }
  return rows;
}

}  // namespace

const BenchFamily& scan_family() {
  static const BenchFamily family(
      {.name = "scan",
       .form = SizeForm::count,
       .max_dim = INT64_MAX,
       .sizes = {"2^24", "2^26"},
       .full_sizes = {"2^20", "2^24", "2^26", "2^28", "100000007"},
       .explain_size = "2^24",
       .dtypes = kScanTypes,
       .variants = [] { return infos_of(scan::variants()); },
       // The input, the output, the copy that measures the ceiling, and the workspace.
       .device_bytes =
           [](const Shape& shape, DType type) {
             return static_cast<std::size_t>(count(shape)) * dtype_bytes(type) * 3 + (std::size_t{64} << 20);
           },
       .run =
           [](const BenchFamily& /*self*/, const Shape& shape, DType type,
              std::span<const std::string_view> names, const BenchContext& ctx) {
             return type == DType::f32 ? run_typed<float>(shape, names, ctx)
                                       : run_typed<std::int32_t>(shape, names, ctx);
           }});
  return family;
}

}  // namespace smemlab
