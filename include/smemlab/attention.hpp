#pragma once
// Attention, forward: O = softmax(scale * Q K^T) V for every batch and query head, with the
// log-sum-exp of each row's scaled scores. The layouts and the masking rule every step of the
// family keeps, its argument checks, and the CPU reference the steps are checked against.
//
// Q and O: [batch, q_heads, q_len, head_dim]; K and V: [batch, kv_heads, kv_len, head_dim], the
// elements of a row (head_dim) contiguous, the other strides given in elements by the caller.
// Query head h reads kv head h / (q_heads / kv_heads) (grouped-query attention; kv_heads =
// q_heads is multi-head, kv_heads = 1 multi-query). Causal masking is aligned to the bottom right:
// query row i sees keys j <= i + (kv_len - q_len), so the last query row sees every key (as a
// decoding step needs) and, where q_len = kv_len, row i sees keys 0 to i. A row that sees no key
// (causal with kv_len < q_len, or kv_len = 0) has output 0 and log-sum-exp -infinity.
#include <cstddef>
#include <cstdint>
#include <span>

namespace smemlab::attention {

// Strides in elements between consecutive batches, heads and sequence positions.
struct Strides {
  std::int64_t batch = 0;
  std::int64_t head = 0;
  std::int64_t seq = 0;
};

struct Shape {
  int batch = 1;
  int q_heads = 1;
  int kv_heads = 1;
  int q_len = 1;
  int kv_len = 1;
  int head_dim = 128;
  bool causal = false;
  float scale = 0.0F;  // softmax scale; 1 / sqrt(head_dim) is the usual choice
};

// The dense strides of [batch, heads, len, head_dim].
[[nodiscard]] Strides dense_strides(int heads, int len, int head_dim);

// Throws std::invalid_argument naming the first violated condition: sizes (batch, heads and
// q_len at least 1, kv_len at least 0, kv_heads dividing q_heads), head_dim 64, 128 or 256, a
// finite positive scale, and strides that are multiples of 8 elements (16-byte rows for the
// tensor cores' loads) with rows that do not overlap (seq >= head_dim).
void validate(const Shape& shape, const Strides& q, const Strides& k, const Strides& v, const Strides& o);

// Whether query row i sees key j under the shape's mask.
[[nodiscard]] inline bool visible(const Shape& s, int i, int j) {
  return !s.causal || static_cast<std::int64_t>(j) <= static_cast<std::int64_t>(i) + (s.kv_len - s.q_len);
}

// The reference, in double from float inputs (the bf16 or half values, converted): out gets O
// ([batch, q_heads, q_len, head_dim], dense) and lse the log-sum-exp of each row's scaled
// scores ([batch, q_heads, q_len], dense; -infinity for a row that sees no key).
void reference(const Shape& shape, std::span<const float> q, const Strides& q_strides,
               std::span<const float> k, const Strides& k_strides, std::span<const float> v,
               const Strides& v_strides, std::span<double> out, std::span<double> lse);

}  // namespace smemlab::attention
