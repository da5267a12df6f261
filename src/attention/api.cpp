// The attention family's argument checks, and its reference: every row's scores in double, the
// softmax with its maximum taken out first (so that exp never overflows), the weighted sum of V's
// rows. Quadratic in the sequence lengths and single-threaded: meant for test sizes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "smemlab/attention.hpp"

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

void reference(const Shape& s, std::span<const float> q, const Strides& qs, std::span<const float> k,
               const Strides& ks, std::span<const float> v, const Strides& vs, std::span<double> out,
               std::span<double> lse) {
  const int d = s.head_dim;
  const int group = s.q_heads / s.kv_heads;
  std::vector<double> scores(static_cast<std::size_t>(std::max(s.kv_len, 1)));
  std::size_t row = 0;
  for (int b = 0; b < s.batch; ++b) {
    for (int h = 0; h < s.q_heads; ++h) {
      const int kv = h / group;
      for (int i = 0; i < s.q_len; ++i, ++row) {
        const float* qi = q.data() + b * qs.batch + h * qs.head + i * qs.seq;
        double* const o = out.data() + row * d;
        double peak = -std::numeric_limits<double>::infinity();
        for (int j = 0; j < s.kv_len; ++j) {
          if (!visible(s, i, j)) continue;
          const float* kj = k.data() + b * ks.batch + kv * ks.head + j * ks.seq;
          double dot = 0.0;
          for (int c = 0; c < d; ++c) dot += static_cast<double>(qi[c]) * kj[c];
          scores[static_cast<std::size_t>(j)] = static_cast<double>(s.scale) * dot;
          peak = std::max(peak, scores[static_cast<std::size_t>(j)]);
        }
        std::fill(o, o + d, 0.0);
        if (peak == -std::numeric_limits<double>::infinity()) {  // no key visible
          lse[row] = peak;
          continue;
        }
        double sum = 0.0;
        for (int j = 0; j < s.kv_len; ++j) {
          if (!visible(s, i, j)) continue;
          const double p = std::exp(scores[static_cast<std::size_t>(j)] - peak);
          sum += p;
          const float* vj = v.data() + b * vs.batch + kv * vs.head + j * vs.seq;
          for (int c = 0; c < d; ++c) o[c] += p * vj[c];
        }
        for (int c = 0; c < d; ++c) o[c] /= sum;
        lse[row] = peak + std::log(sum);
      }
    }
  }
}

}  // namespace smemlab::attention
