// The attention family's argument checks, its table and run(), and its reference: every row's
// scores in double, the softmax with its maximum taken out first (so that exp never overflows),
// the weighted sum of V's rows. The reference is quadratic in the sequence lengths and
// single-threaded: meant for test sizes, or for a sample of rows (reference_row).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "attention/variants.hpp"
#include "smemlab/attention.hpp"
#include "smemlab/error.hpp"

namespace smemlab::attention {

Strides dense_strides(int heads, int len, int head_dim) {
  const std::int64_t seq = head_dim;
  const std::int64_t head = seq * len;
  return {head * heads, head, seq};
}

void validate(const Shape& s, const Strides& q, const Strides& k, const Strides& v, const Strides& o) {
  const auto fail = [](const std::string& message) { throw std::invalid_argument("attention: " + message); };
  if (s.batch < 1 || s.q_heads < 1 || s.kv_heads < 1 || s.q_len < 1 || s.kv_len < 0)
    fail(fmt::format(
        "batch, heads and q_len must be at least 1 and kv_len at least 0 (got batch {}, heads {}/{}, "
        "q_len {}, kv_len {})",
        s.batch, s.q_heads, s.kv_heads, s.q_len, s.kv_len));
  if (s.q_heads % s.kv_heads != 0)
    fail(fmt::format("kv_heads ({}) must divide q_heads ({})", s.kv_heads, s.q_heads));
  if (s.head_dim != 64 && s.head_dim != 128 && s.head_dim != 256)
    fail(fmt::format("head_dim must be 64, 128 or 256 (got {})", s.head_dim));
  if (!(std::isfinite(s.scale) && s.scale > 0.0F))
    fail(fmt::format("scale must be finite and positive (got {})", s.scale));
  const auto check = [&](const char* name, const Strides& t) {
    for (const std::int64_t stride : {t.batch, t.head, t.seq})
      if (stride % 8 != 0 || stride < 0)
        fail(fmt::format(
            "{}'s strides ({}, {}, {}) must be non-negative multiples of 8 elements (16-byte rows)", name,
            t.batch, t.head, t.seq));
    if (t.seq < s.head_dim)
      fail(fmt::format("{}'s rows overlap: seq stride {} < head_dim {}", name, t.seq, s.head_dim));
  };
  check("Q", q);
  check("K", k);
  check("V", v);
  check("O", o);
}

void reference_row(const Shape& s, std::span<const float> q, const Strides& qs, std::span<const float> k,
                   const Strides& ks, std::span<const float> v, const Strides& vs, int b, int h, int i,
                   std::span<double> o, double& lse) {
  const int d = s.head_dim;
  const int kv = h / (s.q_heads / s.kv_heads);
  std::vector<double> scores(static_cast<std::size_t>(std::max(s.kv_len, 1)));
  const float* qi = q.data() + b * qs.batch + h * qs.head + i * qs.seq;
  double peak = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < s.kv_len; ++j) {
    if (!visible(s, i, j)) continue;
    const float* kj = k.data() + b * ks.batch + kv * ks.head + j * ks.seq;
    double dot = 0.0;
    for (int c = 0; c < d; ++c) dot += static_cast<double>(qi[c]) * kj[c];
    scores[static_cast<std::size_t>(j)] = static_cast<double>(s.scale) * dot;
    peak = std::max(peak, scores[static_cast<std::size_t>(j)]);
  }
  std::fill(o.begin(), o.begin() + d, 0.0);
  lse = peak;
  if (peak == -std::numeric_limits<double>::infinity()) return;  // no key visible
  double sum = 0.0;
  for (int j = 0; j < s.kv_len; ++j) {
    if (!visible(s, i, j)) continue;
    const double p = std::exp(scores[static_cast<std::size_t>(j)] - peak);
    sum += p;
    const float* vj = v.data() + b * vs.batch + kv * vs.head + j * vs.seq;
    for (int c = 0; c < d; ++c) o[static_cast<std::size_t>(c)] += p * vj[c];
  }
  for (int c = 0; c < d; ++c) o[static_cast<std::size_t>(c)] /= sum;
  lse = peak + std::log(sum);
}

void reference(const Shape& s, std::span<const float> q, const Strides& qs, std::span<const float> k,
               const Strides& ks, std::span<const float> v, const Strides& vs, std::span<double> out,
               std::span<double> lse) {
  std::size_t row = 0;
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.q_heads; ++h)
      for (int i = 0; i < s.q_len; ++i, ++row)
        reference_row(s, q, qs, k, ks, v, vs, b, h, i, out.subspan(row * s.head_dim, s.head_dim), lse[row]);
}

void validate(const Args& a) {
  validate(a.shape, a.q_strides, a.k_strides, a.v_strides, a.o_strides);
  const auto fail = [](const std::string& message) { throw std::invalid_argument("attention: " + message); };
  if (a.type != DType::bf16 && a.type != DType::f16)
    fail(fmt::format("Q, K, V and O are bf16 or half (got {})", dtype_name(a.type)));
  const auto check = [&](const char* name, const void* p, bool may_be_null) {
    if (p == nullptr && !may_be_null) fail(fmt::format("null {} pointer", name));
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      fail(fmt::format("{} must be 16-byte aligned, as its rows are", name));
  };
  check("Q", a.q, false);
  check("K", a.k, a.shape.kv_len == 0);
  check("V", a.v, a.shape.kv_len == 0);
  check("O", a.o, false);
}

std::span<const AttentionVariant> variants() {
#define SMEMLAB_MAKE_STEP(make) detail::make(),
  static const auto table = [] {
    auto steps = std::array{SMEMLAB_ATTENTION_STEPS(SMEMLAB_MAKE_STEP)};
    for (auto& v : steps) v.info.dtypes = kAttentionTypes;  // every step takes both
    return steps;
  }();
#undef SMEMLAB_MAKE_STEP
  return table;
}

const AttentionVariant& find(std::string_view name) { return find_variant(variants(), name); }

std::size_t workspace_bytes(const AttentionVariant& variant, const Args& args) {
  validate(args.shape, args.q_strides, args.k_strides, args.v_strides, args.o_strides);
  return variant.launch.workspace_bytes(args);
}

void run(const AttentionVariant& variant, const Args& a, const LaunchContext& ctx) {
  validate(a);
  if (const std::string why = variant.info.why_unavailable(); !why.empty())
    throw std::invalid_argument(fmt::format("attention: {} cannot run here: {}", variant.info.name, why));
  const std::size_t needed = variant.launch.workspace_bytes(a);
  if (needed > 0 && (a.workspace == nullptr || a.workspace_size < needed))
    throw std::invalid_argument(fmt::format("attention: {} needs a workspace of {} bytes (got {})",
                                            variant.info.name, needed,
                                            a.workspace == nullptr ? 0 : a.workspace_size));
  if (needed > 0 && reinterpret_cast<std::uintptr_t>(a.workspace) % 16 != 0)
    throw std::invalid_argument("attention: the workspace must be 16-byte aligned");
  in_routine("attention::run(" + std::string(variant.info.name) + ")",
             [&] { variant.launch.device(a, ctx); });
}

// Every step rounds twice on the way to O: the probabilities P to the storage type before the
// product P V (unit roundoff u: 2^-8 for bf16, 2^-11 for half), and O itself. Scores and sums are
// float, about 2^-24 each. Each rounding adds at most u to an element's relative error, so the
// norm-wise error stays under 2u; the bound allows 4u.
double relative_tolerance(DType type) { return type == DType::f16 ? 0x1.0p-9 : 0x1.0p-6; }

}  // namespace smemlab::attention
