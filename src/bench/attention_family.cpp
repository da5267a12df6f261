// The attention family in the benchmark: a size is the sequence length N (queries and keys
// alike), with 16,384 tokens a batch (batch = 16,384 / N, at least 1) and heads x head_dim =
// 2,048, as the comparisons with cuDNN and FlashAttention quote it. Each size runs head dims 128
// and 64, non-causal and causal, as rows labelled "bf16 hd128 causal", and grouped-query
// attention, 32 query heads over 8 kv heads of 128 with a causal mask ("bf16 hd128 causal gqa").
// Throughput is TFLOP/s of the two products, 4 batch q_heads N^2 head_dim a run, halved for
// causal masks. Every output is checked before it is timed: rows spread over the batch, the
// heads and the sequence against the double-precision reference, and their log-sum-exp.
// Where cuDNN was found at build time, a row "cudnn" times its fused attention on the same
// tensors (checked the same way), the library a user would call instead; the reference row
// that ratios divide stays `unfused`, which every build has.
//
// The decoding family (attention-decode): a size is the kv length, the cached keys and values a
// step of generation reads, for 1 and for 16 new query tokens ("bf16 hd128 gqa q1", "... q16";
// no mask, as every new token sees the whole cache), grouped-query attention 32/8 of head dim
// 128. The cache holds 262,144 tokens a layer (1 GiB of K and V in bf16), as batch = 262,144 /
// kv_len sequences up to a kv length of 32,768; a longer cache is one sequence. Throughput is
// GB/s of K and V read: the step is bound by that read.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>

#include "bench/cudnn_attention.hpp"
#include "bench/device_memory.hpp"
#include "bench/families.hpp"
#include "smemlab/attention.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/error.hpp"

namespace smemlab {
namespace {

constexpr int kTokens = 16384;     // tokens a batch
constexpr int kModelWidth = 2048;  // heads x head_dim
constexpr int kCheckedRows = 48;   // rows compared with the reference, per case

template <class Storage>
std::vector<float> to_float(const DeviceBuffer<Storage>& device, cudaStream_t stream) {
  std::vector<Storage> raw(device.size());
  device.download(raw, stream);
  std::vector<float> out(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<float>(raw[i]);  // exact
  return out;
}

// Grouped-query attention: 32 query heads over 8 kv heads of 128 (as Llama-style models of
// 4,096 wide); its rows are labelled "gqa".
constexpr int kGroupedQueryHeads = 32;
constexpr int kGroupedKvHeads = 8;

attention::Shape shape_of(int seq, int head_dim, bool causal, bool grouped = false) {
  return {.batch = std::max(1, kTokens / seq),
          .q_heads = grouped ? kGroupedQueryHeads : kModelWidth / head_dim,
          .kv_heads = grouped ? kGroupedKvHeads : kModelWidth / head_dim,
          .q_len = seq,
          .kv_len = seq,
          .head_dim = head_dim,
          .causal = causal,
          .scale = 1.0F / std::sqrt(static_cast<float>(head_dim))};
}

// Decoding: the cache's tokens a layer, and its longest single sequence split into a batch.
constexpr int kCacheTokens = 262144;
constexpr int kLongestSplitCache = 32768;

attention::Shape decode_shape(int kv_len, int q_len) {
  return {.batch = kv_len <= kLongestSplitCache ? kCacheTokens / kv_len : 1,
          .q_heads = kGroupedQueryHeads,
          .kv_heads = kGroupedKvHeads,
          .q_len = q_len,
          .kv_len = kv_len,
          .head_dim = 128,
          .causal = false,
          .scale = 1.0F / std::sqrt(128.0F)};
}

// How a case is labelled and what its rows rate: the two products' TFLOP/s, or for decoding the
// GB/s of K and V read.
enum class Measure { flops, kv_bytes };

template <class Storage>
std::vector<BenchRow> run_case(const attention::Shape& s, DType type,
                               std::span<const attention::AttentionVariant* const> chosen,
                               const std::string& size, Measure measured, const BenchContext& ctx) {
  const bool decoding = measured == Measure::kv_bytes;
  const std::string label =
      fmt::format("{} hd{}{}{}{}", dtype_name(type), s.head_dim, s.causal ? " causal" : "",
                  s.kv_heads < s.q_heads ? " gqa" : "",
                  decoding ? fmt::format(" q{}", s.q_len) : std::string());
  ctx.progress(fmt::format("attention {} {}: inputs", label, size), false);
  const std::size_t elements = static_cast<std::size_t>(s.batch) * s.q_heads * s.q_len * s.head_dim;
  const std::size_t kv_elements = static_cast<std::size_t>(s.batch) * s.kv_heads * s.kv_len * s.head_dim;
  const std::size_t rows = static_cast<std::size_t>(s.batch) * s.q_heads * s.q_len;
  DeviceBuffer<Storage> q(elements), k(kv_elements), v(kv_elements), o(elements);
  DeviceBuffer<float> lse(rows);
  fill_uniform(q.data(), elements, 11, -1.0F, 1.0F, ctx.stream);
  fill_uniform(k.data(), kv_elements, 12, -1.0F, 1.0F, ctx.stream);
  fill_uniform(v.data(), kv_elements, 13, -1.0F, 1.0F, ctx.stream);
  const attention::Strides dense = attention::dense_strides(s.q_heads, s.q_len, s.head_dim);
  const attention::Strides kv_dense = attention::dense_strides(s.kv_heads, s.kv_len, s.head_dim);
  attention::Args args{.type = type,
                       .shape = s,
                       .q = q.data(),
                       .q_strides = dense,
                       .k = k.data(),
                       .k_strides = kv_dense,
                       .v = v.data(),
                       .v_strides = kv_dense,
                       .o = o.data(),
                       .o_strides = dense,
                       .lse = lse.data()};
  std::size_t workspace_bytes = 0;
  for (const auto* var : chosen)
    workspace_bytes = std::max(workspace_bytes, attention::workspace_bytes(*var, args));
  DeviceBuffer<std::byte> workspace(workspace_bytes);
  args.workspace = workspace.data();
  args.workspace_size = workspace.size();

  // The checked rows, evenly spread over all of them (first and last included), and their
  // reference values.
  const std::vector<float> hq = to_float(q, ctx.stream), hk = to_float(k, ctx.stream),
                           hv = to_float(v, ctx.stream);
  std::vector<std::size_t> checked;
  for (int r = 0; r < kCheckedRows; ++r) checked.push_back(r * (rows - 1) / (kCheckedRows - 1));
  std::vector<double> want(checked.size() * s.head_dim), want_lse(checked.size());
  for (std::size_t r = 0; r < checked.size(); ++r) {
    const std::size_t row = checked[r];
    const auto i = static_cast<int>(row % s.q_len), h = static_cast<int>(row / s.q_len % s.q_heads),
               b = static_cast<int>(row / s.q_len / s.q_heads);
    attention::reference_row(s, hq, dense, hk, kv_dense, hv, kv_dense, b, h, i,
                             std::span(want).subspan(r * s.head_dim, s.head_dim), want_lse[r]);
  }

  const CublasHandle cublas;
  const LaunchContext launch_ctx{ctx.stream, cublas.get()};
  // O and the log-sum-exps of one call, poisoned first, against the reference rows.
  const auto checked_call = [&](const std::function<void()>& call) {
    SMEMLAB_CUDA_CHECK(cudaMemsetAsync(workspace.data(), 0xFF, workspace.bytes(), ctx.stream));
    o.poison(ctx.stream);
    lse.poison(ctx.stream);
    call();
    const std::vector<float> got = to_float(o, ctx.stream);
    std::vector<float> got_lse(rows);
    lse.download(got_lse, ctx.stream);
    double diff = 0.0, norm = 0.0, worst = 0.0, lse_error = 0.0;
    for (std::size_t r = 0; r < checked.size(); ++r) {
      for (int c = 0; c < s.head_dim; ++c) {
        const double d = got[checked[r] * s.head_dim + c] - want[r * s.head_dim + c];
        diff += d * d;
        norm += want[r * s.head_dim + c] * want[r * s.head_dim + c];
        worst = std::max(worst, std::isnan(d) ? INFINITY : std::abs(d));
      }
      const double e =
          std::abs(got_lse[checked[r]] - want_lse[r]) / std::max(1.0, std::abs(want_lse[r]));
      lse_error = std::max(lse_error, std::isnan(e) ? INFINITY : e);
    }
    const double error = std::sqrt(diff / norm);
    const double rms = std::sqrt(norm / static_cast<double>(want.size()));
    return Check{error <= attention::relative_tolerance(type) && lse_error <= 1e-4, error,
                 worst / rms, "cpu-fp64-rows"};
  };
  std::vector<Candidate> candidates;
  for (const auto* var : chosen)
    candidates.push_back({.name = std::string(var->info.name),
                          .check = [&, var] { return checked_call([&] { attention::run(*var, args, launch_ctx); }); },
                          .launch = [&, var] { attention::run(*var, args, launch_ctx); },
                          .dtype_label = label});
  // cuDNN's fused attention beside them, where it was built in and takes the shape.
  std::unique_ptr<CudnnAttention> cudnn;
  if (const std::string why = CudnnAttention::why_unavailable(); !why.empty()) {
    ctx.progress(fmt::format("attention {} {}: {}", label, size, why), false);
  } else {
    try {
      cudnn = std::make_unique<CudnnAttention>(args);
    } catch (const std::runtime_error& e) {
      ctx.progress(fmt::format("attention {} {}: no cuDNN row: {}", label, size, e.what()), false);
    }
  }
  if (cudnn != nullptr)
    candidates.push_back({.name = "cudnn",
                          .check = [&] { return checked_call([&] { cudnn->run(args, ctx.stream); }); },
                          .launch = [&] { cudnn->run(args, ctx.stream); },
                          .dtype_label = label,
                          .library = true});
  const double flops = 4.0 * s.batch * s.q_heads * static_cast<double>(s.q_len) * s.kv_len * s.head_dim;
  const double kv_bytes = 2.0 * static_cast<double>(kv_elements) * sizeof(Storage);
  const Workload work{.size = size,
                      .rate = decoding ? Rate::bytes(kv_bytes, ctx.device)
                                       : Rate::tensor_flops(s.causal ? flops / 2 : flops, ctx.device, type)};
  return measure(decoding ? "attention-decode" : "attention", type, work, candidates, ctx);
}

// The unfused reference, then the named variants that can run here.
std::vector<const attention::AttentionVariant*> chosen_variants(std::span<const std::string_view> names) {
  std::vector<const attention::AttentionVariant*> chosen{&attention::find("unfused")};
  for (const auto name : names) {
    const auto& v = attention::find(name);
    if (v.info.why_unavailable().empty() && !v.info.reference) chosen.push_back(&v);
  }
  return chosen;
}

// Each shape's rows, in order.
std::vector<BenchRow> run_shapes(std::span<const attention::Shape> shapes, DType type,
                                 std::span<const std::string_view> names, const std::string& size,
                                 Measure measured, const BenchContext& ctx) {
  const auto chosen = chosen_variants(names);
  std::vector<BenchRow> rows;
  for (const auto& s : shapes) {
    std::vector<BenchRow> more = type == DType::f16
                                     ? run_case<__half>(s, type, chosen, size, measured, ctx)
                                     : run_case<__nv_bfloat16>(s, type, chosen, size, measured, ctx);
    rows.insert(rows.end(), more.begin(), more.end());
  }
  return rows;
}

std::vector<BenchRow> run_attention(const Shape& shape, DType type, std::span<const std::string_view> names,
                                    const BenchContext& ctx) {
  const std::int64_t seq = count(shape);
  if (seq > kTokens)
    throw UsageError(fmt::format("attention sizes are sequence lengths up to {} (got {})", kTokens, seq));
  std::vector<attention::Shape> shapes;
  for (const int head_dim : {128, 64})
    for (const bool causal : {false, true})
      shapes.push_back(shape_of(static_cast<int>(seq), head_dim, causal));
  shapes.push_back(shape_of(static_cast<int>(seq), 128, true, true));
  return run_shapes(shapes, type, names, std::to_string(seq), Measure::flops, ctx);
}

std::vector<BenchRow> run_decode(const Shape& shape, DType type, std::span<const std::string_view> names,
                                 const BenchContext& ctx) {
  const auto kv_len = static_cast<int>(count(shape));
  const std::array shapes{decode_shape(kv_len, 1), decode_shape(kv_len, 16)};
  return run_shapes(shapes, type, names, std::to_string(kv_len), Measure::kv_bytes, ctx);
}

}  // namespace

const BenchFamily& attention_family() {
  static const BenchFamily family(
      {.name = "attention",
       .form = SizeForm::count,
       .max_dim = kTokens,
       .sizes = {"2048"},
       .full_sizes = {"512", "1024", "2048", "4096", "8192", "16384"},
       .explain_size = "2048",
       .dtypes = attention::kAttentionTypes,
       .variants = [] { return infos_of(attention::variants()); },
       // Q and O of 16,384 tokens x 32 heads of 128 (the grouped-query case), K and V of 2,048,
       // the log-sum-exps, and the reference's scores (at most 1 GiB of them at these sizes, and
       // their pointer arrays).
       .device_bytes = [](const Shape& /*shape*/, DType /*type*/) -> std::size_t {
         return 2 * std::size_t{kTokens} * (kGroupedQueryHeads * 128 + kModelWidth) * 2 +
                (std::size_t{1} << 30) + (std::size_t{16} << 20);
       },
       .run = [](const BenchFamily& /*self*/, const Shape& shape, DType type,
                 std::span<const std::string_view> names,
                 const BenchContext& ctx) { return run_attention(shape, type, names, ctx); }});
  return family;
}

const BenchFamily& attention_decode_family() {
  static const BenchFamily family(
      {.name = "attention-decode",
       .form = SizeForm::count,
       .max_dim = 131072,
       .sizes = {"4096"},
       .full_sizes = {"4096", "32768", "131072"},
       .explain_size = "4096",
       .dtypes = attention::kAttentionTypes,
       .in_default_run = false,
       .variants = [] { return infos_of(attention::variants()); },
       // The cache (K and V of 262,144 tokens, or of one sequence of up to 131,072), Q and O of
       // 16 tokens a sequence, and the reference's scores and their pointer arrays.
       .device_bytes = [](const Shape& /*shape*/, DType /*type*/) -> std::size_t {
         return 2 * std::size_t{kCacheTokens} * kGroupedKvHeads * 128 * 2 + (std::size_t{1} << 30) +
                (std::size_t{64} << 20);
       },
       .run = [](const BenchFamily& /*self*/, const Shape& shape, DType type,
                 std::span<const std::string_view> names,
                 const BenchContext& ctx) { return run_decode(shape, type, names, ctx); }});
  return family;
}

}  // namespace smemlab
