#pragma once
// Attention, forward: O = softmax(scale * Q K^T) V for every batch and query head, with the
// log-sum-exp of each row's scaled scores. The layouts and the masking rule every step of the
// family keeps, its argument checks, and the CPU reference the steps are checked against.
//
// Q and O: [batch, q_heads, q_len, head_dim]; K and V: [batch, kv_heads, kv_len, head_dim], the
// elements of a row (head_dim) contiguous, the other strides given in elements by the caller.
// Query head h reads kv head h / (q_heads / kv_heads) (grouped-query attention; kv_heads =
// q_heads is multi-head, kv_heads = 1 multi-query). O's rows must not overlap each other: the
// strides are checked for alignment and for rows at least head_dim apart, not for overlaps between
// heads or batches. Causal masking is aligned to the bottom right:
// query row i sees keys j <= i + (kv_len - q_len), so the last query row sees every key (as a
// decoding step needs) and, where q_len = kv_len, row i sees keys 0 to i. A row that sees no key
// (causal with kv_len < q_len, or kv_len = 0) has output 0 and log-sum-exp -infinity.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "smemlab/dtype.hpp"
#include "smemlab/launch.hpp"
#include "smemlab/variant.hpp"

namespace smemlab::attention {

// The element types of Q, K, V and O; scores and sums are float.
inline constexpr DType kAttentionTypes[] = {DType::bf16, DType::f16};

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

// One call's arguments. Q, K, V and O hold bf16 or half elements (`type`); the scores, the
// softmax and the sums are float. Pointers are 16-byte aligned (validate() says so otherwise).
struct Args {
  DType type = DType::bf16;
  Shape shape;
  const void* q = nullptr;
  Strides q_strides;
  const void* k = nullptr;
  Strides k_strides;
  const void* v = nullptr;
  Strides v_strides;
  void* o = nullptr;  // [batch, q_heads, q_len, head_dim] with o_strides, overwritten
  Strides o_strides;
  float* lse = nullptr;  // [batch, q_heads, q_len], dense, natural log; may be null
  // Scratch for the variants that keep the scores in global memory, workspace_bytes(variant,
  // args) bytes, 16-byte aligned, any content on entry.
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
};

// validate(shape, strides...) and the call's own conditions: a bf16 or half type, non-null
// 16-byte aligned pointers (K and V may be null when kv_len is 0).
void validate(const Args& args);

struct Ops {
  std::size_t (*workspace_bytes)(const Args& args) = nullptr;
  void (*device)(const Args& args, const LaunchContext& ctx) = nullptr;
};

using AttentionVariant = Variant<Ops>;

// Registered variants in teaching order; the reference ("unfused") first.
[[nodiscard]] std::span<const AttentionVariant> variants();
// Throws UsageError for an unknown name.
[[nodiscard]] const AttentionVariant& find(std::string_view name);

// The workspace a call with these arguments needs (0 for the fused steps); throws
// std::invalid_argument for a bad shape or bad strides, as run() would.
[[nodiscard]] std::size_t workspace_bytes(const AttentionVariant& variant, const Args& args);

// Validates, then launches asynchronously on ctx.stream. Throws, before any work is queued,
// std::invalid_argument for bad arguments, a workspace that is missing or too small, or a
// variant that cannot run on this device; CudaError (smemlab/error.hpp) naming this routine when
// a CUDA or cuBLAS call fails. The reference needs ctx.cublas. Safe to call from several
// threads at once, each with its own stream and workspace, and to capture into a CUDA graph:
// docs/library-contract.md.
void run(const AttentionVariant& variant, const Args& args, const LaunchContext& ctx);

// Largest accepted ||O - O_ref||_F / ||O_ref||_F for outputs stored in `type`, against the
// reference on the same inputs; the definition explains the error model.
[[nodiscard]] double relative_tolerance(DType type);

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

// One row of the reference: query row i of head h of batch b; out gets head_dim values. For
// checks of long sequences, where the whole reference would take too long.
void reference_row(const Shape& shape, std::span<const float> q, const Strides& q_strides,
                   std::span<const float> k, const Strides& k_strides, std::span<const float> v,
                   const Strides& v_strides, int b, int h, int i, std::span<double> out, double& lse);

}  // namespace smemlab::attention
