// Every attention variant, bf16 and half, against the double-precision reference on the same
// (rounded) inputs: sequence lengths that are not multiples of any tile (1, 7, 129, 1000, 4097),
// q_len != kv_len with the causal mask aligned to the bottom right (rows that see no key
// included), grouped-query heads, head dims 64, 128 and 256, padded rows and heads stored before
// batches, more than 65,535 heads x batches, no keys at all, and decoding shapes (1 to 16 query
// rows over thousands of keys). O is poisoned first and its
// padding must stay untouched; the workspace starts full of garbage.
#include "smemlab/attention.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "support/gpu.hpp"

using namespace smemlab;
using AttentionShape = attention::Shape;
using attention::Strides;

namespace {

enum Tensor { kQ, kK, kV, kO };

struct Case {
  std::string name;
  AttentionShape shape;
  std::array<int, 4> pad = {};  // elements after each row of Q, K, V and O
  bool heads_outer = false;     // [heads, batch, len, row] instead of [batch, heads, len, row]
  float input_range = 1.0F;     // inputs uniform in [-range, range]
  bool null_kv = false;         // K and V passed as null pointers (kv_len 0)
};

// A tensor's strides in its case's layout, and its elements in total.
Strides strides_of(const Case& c, Tensor t) {
  const int heads = t == kK || t == kV ? c.shape.kv_heads : c.shape.q_heads;
  const int len = t == kK || t == kV ? c.shape.kv_len : c.shape.q_len;
  const std::int64_t seq = c.shape.head_dim + c.pad[t];
  if (c.heads_outer) return {.batch = len * seq, .head = c.shape.batch * len * seq, .seq = seq};
  return {.batch = heads * len * seq, .head = len * seq, .seq = seq};
}
std::size_t elements_of(const Case& c, Tensor t) {
  const int heads = t == kK || t == kV ? c.shape.kv_heads : c.shape.q_heads;
  const int len = t == kK || t == kV ? c.shape.kv_len : c.shape.q_len;
  return static_cast<std::size_t>(c.shape.batch) * heads * std::max(len, 1) * (c.shape.head_dim + c.pad[t]);
}

// Random values rounded to T, in T and as floats (what the reference reads).
template <class T>
void random_tensor(std::size_t count, float range, unsigned seed, std::vector<T>& stored,
                   std::vector<float>& values) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-range, range);
  stored.resize(count);
  values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    stored[i] = static_cast<T>(dist(gen));
    values[i] = static_cast<float>(stored[i]);
  }
}

template <class T>
void check_case(const attention::AttentionVariant& variant, const Case& c) {
  const AttentionShape& s = c.shape;
  const Strides qs = strides_of(c, kQ), ks = strides_of(c, kK), vs = strides_of(c, kV),
                os = strides_of(c, kO);
  std::vector<T> q, k, v;
  std::vector<float> qf, kf, vf;
  random_tensor(elements_of(c, kQ), c.input_range, 1, q, qf);
  random_tensor(elements_of(c, kK), c.input_range, 2, k, kf);
  random_tensor(elements_of(c, kV), 1.0F, 3, v, vf);
  const std::size_t rows = static_cast<std::size_t>(s.batch) * s.q_heads * s.q_len;
  std::vector<double> want(rows * s.head_dim), want_lse(rows);
  attention::reference(s, qf, qs, kf, ks, vf, vs, want, want_lse);

  DeviceBuffer<T> dq(q.size()), dk(k.size()), dv(v.size()), dout(elements_of(c, kO));
  DeviceBuffer<float> dlse(rows);
  dq.upload(q, nullptr);
  dk.upload(k, nullptr);
  dv.upload(v, nullptr);
  dout.poison(nullptr);
  dlse.poison(nullptr);
  const DType type = std::is_same_v<T, __half> ? DType::f16 : DType::bf16;
  attention::Args args{.type = type,
                       .shape = s,
                       .q = dq.data(),
                       .q_strides = qs,
                       .k = c.null_kv ? nullptr : dk.data(),
                       .k_strides = ks,
                       .v = c.null_kv ? nullptr : dv.data(),
                       .v_strides = vs,
                       .o = dout.data(),
                       .o_strides = os,
                       .lse = dlse.data()};
  DeviceBuffer<std::byte> workspace(attention::workspace_bytes(variant, args));
  workspace.poison(nullptr);
  args.workspace = workspace.data();
  args.workspace_size = workspace.size();
  const CublasHandle cublas;
  attention::run(variant, args, {nullptr, cublas.get()});
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> got(dout.size());
  dout.download(got, nullptr);
  std::vector<float> got_lse(rows);
  dlse.download(got_lse, nullptr);

  const double tolerance = attention::relative_tolerance(type);
  double diff = 0.0, norm = 0.0;
  int bad_rows = 0;
  std::size_t row = 0;
  std::vector<bool> written(got.size(), false);
  for (int b = 0; b < s.batch; ++b)
    for (int h = 0; h < s.q_heads; ++h)
      for (int i = 0; i < s.q_len; ++i, ++row) {
        const std::size_t at = b * os.batch + h * os.head + i * os.seq;
        double row_diff = 0.0, row_norm = 0.0;
        for (int d = 0; d < s.head_dim; ++d) {
          written[at + d] = true;
          const double want_d = want[row * s.head_dim + d];
          const double e = static_cast<double>(static_cast<float>(got[at + d])) - want_d;
          row_diff += e * e;
          row_norm += want_d * want_d;
        }
        diff += row_diff;
        norm += row_norm;
        const bool lse_ok =
            std::isinf(want_lse[row])
                ? got_lse[row] == -std::numeric_limits<float>::infinity()
                : std::abs(got_lse[row] - want_lse[row]) <= 1e-4 * std::max(1.0, std::abs(want_lse[row]));
        const bool row_ok =
            row_norm == 0.0 ? row_diff == 0.0 : std::sqrt(row_diff / row_norm) <= 2 * tolerance;
        if (!(row_ok && lse_ok) && ++bad_rows <= 3)
          ADD_FAILURE() << "row " << row << " (batch " << b << ", head " << h << ", position " << i
                        << "): relative error " << std::sqrt(row_diff / std::max(row_norm, 1e-300))
                        << ", lse " << got_lse[row] << " against " << want_lse[row];
      }
  EXPECT_EQ(bad_rows, 0);
  if (norm > 0.0) EXPECT_LE(std::sqrt(diff / norm), tolerance);
  std::size_t touched = 0;  // padding and rows of no (batch, head, position) keep the poison
  for (std::size_t i = 0; i < got.size(); ++i) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, &got[i], 2);
    touched += !written[i] && bits != 0xFFFF;
  }
  EXPECT_EQ(touched, 0U) << "elements written outside O's rows";
}

std::vector<Case> cases() {
  const auto shape = [](int batch, int q_heads, int kv_heads, int q_len, int kv_len, int head_dim,
                        bool causal, float scale_times_sqrt_d = 1.0F) {
    return AttentionShape{
        batch,  q_heads,  kv_heads, q_len,
        kv_len, head_dim, causal,   scale_times_sqrt_d / std::sqrt(static_cast<float>(head_dim))};
  };
  const std::array<int, 4> padded = {8, 8, 8, 8};
  return {
      {"one_row", shape(1, 1, 1, 1, 1, 64, false)},
      {"seven_causal", shape(1, 2, 2, 7, 7, 128, true), {}, false, 2.0F},
      {"odd_tiles_causal", shape(2, 3, 3, 129, 129, 128, true, 4.0F), padded},
      {"thousand", shape(1, 2, 2, 1000, 1000, 64, false, 4.0F)},
      {"fewer_queries_causal", shape(1, 2, 2, 129, 1000, 128, true, 2.0F)},
      {"more_queries_causal", shape(1, 1, 1, 1000, 129, 128, true, 2.0F)},
      {"grouped_query", shape(2, 8, 2, 77, 77, 128, true, 4.0F), {}, true},
      {"head_dim_256", shape(1, 2, 1, 100, 300, 256, false, 2.0F), padded},
      {"head_dim_256_causal", shape(1, 2, 2, 300, 100, 256, true, 4.0F)},
      {"long_causal", shape(1, 1, 1, 4097, 4097, 64, true, 4.0F)},
      // More Q tiles of several key tiles each than an H100 SXM or an H200 has SMs (144 tiles of
      // 192 rows, the tiling step 07 takes here; 132 SMs): some of a persistent step's blocks
      // take a second item.
      {"more_tiles_than_sms", shape(2, 36, 6, 260, 400, 64, true, 2.0F)},
      // The same at head dims 64, 128 and 256, a third of the Q tiles seeing no key (rows 0-170
      // of 300 against 129 keys; 0-199 of 300 against 100): a persistent step's blocks take about
      // three items each, of 0, 1 and 2 key tiles.
      {"many_tiles_some_without_keys", shape(2, 72, 8, 300, 129, 128, true, 2.0F)},
      {"many_tiles_head_dim_64", shape(2, 72, 8, 300, 129, 64, true, 2.0F)},
      {"many_tiles_head_dim_256", shape(1, 140, 14, 300, 100, 256, true, 2.0F)},
      // At head dim 64 a step may take Q tiles of 192 rows (three consumers) or K/V tiles of 256
      // keys without a mask, as its tile model decides: several items an SM of each. Q tiles of
      // 192 rows: 192 items of 5 key tiles of 128 (the last one partial), and with a causal mask
      // 160 items of 4 to 8; two consumers with 256-key tiles: 144 items of 2 (the last partial).
      // (AttentionTileModel.TheGpuTestsMeetEveryTiling pins which tiling each takes.)
      {"many_tiles_head_dim_64_unmasked", shape(2, 48, 8, 300, 600, 64, false, 2.0F)},
      {"many_tiles_head_dim_64_causal_long", shape(1, 40, 8, 700, 900, 64, true, 2.0F)},
      {"many_short_tiles_head_dim_64_unmasked", shape(2, 72, 8, 100, 300, 64, false, 2.0F)},
      {"no_keys", shape(2, 2, 2, 5, 0, 64, false), {}, false, 1.0F, true},
      {"no_keys_causal", shape(1, 2, 1, 70, 0, 128, true)},
      {"many_heads", shape(33000, 2, 1, 2, 3, 64, true, 2.0F)},
      {"decode", shape(2, 8, 2, 1, 1000, 128, true, 4.0F), {}, false, 1.5F},
      // Decoding over longer caches: a step that splits the keys over blocks merges many ranges
      // (one sequence), and packs 64 rows (16 tokens x 4 heads) or 18 (3 x 6) into a tile, with
      // masked ranges the first rows see nothing of.
      // (70,000 keys: probabilities near 1 / kv_len are below half's smallest normal number.)
      {"decode_long_cache", shape(1, 32, 8, 1, 70000, 128, false), {}, false, 1.5F},
      {"decode_sixteen_causal", shape(2, 32, 8, 16, 4101, 64, true, 2.0F), padded},
      {"decode_group_of_six", shape(2, 12, 2, 3, 2500, 256, true, 2.0F)},
      // Each tensor its own row padding: a step that read O's or V's strides from another
      // tensor would write or read the wrong rows.
      {"mixed_layouts", shape(2, 4, 2, 150, 200, 128, true, 2.0F), {8, 16, 0, 24}},
      // Scaled scores reach hundreds (in log2 units): a softmax that did not take the row's
      // maximum out first would overflow.
      {"large_scores", shape(1, 2, 2, 130, 300, 64, false, 64.0F), {}, false, 1.5F},
  };
}

class AttentionVariant : public testing::TestWithParam<std::tuple<std::string, std::string, DType>> {};

TEST_P(AttentionVariant, MatchesTheReference) {
  SMEMLAB_REQUIRE_GPU();
  const auto& [variant, name, type] = GetParam();
  const attention::AttentionVariant& v = attention::find(variant);
  if (const std::string why = v.info.why_unavailable(); !why.empty()) GTEST_SKIP() << why;
  for (const Case& c : cases())
    if (c.name == name) {
      if (type == DType::f16) {
        check_case<__half>(v, c);
      } else {
        check_case<__nv_bfloat16>(v, c);
      }
    }
}

std::vector<std::tuple<std::string, std::string, DType>> params() {
  std::vector<std::tuple<std::string, std::string, DType>> out;
  for (const auto& v : attention::variants())
    for (const Case& c : cases())
      for (const DType type : {DType::bf16, DType::f16})
        out.emplace_back(std::string(v.info.name), c.name, type);
  return out;
}

INSTANTIATE_TEST_SUITE_P(EveryCase, AttentionVariant, testing::ValuesIn(params()), [](const auto& info) {
  return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_" +
         std::string(dtype_name(std::get<2>(info.param)));
});

// Bad arguments are refused before anything is queued: O, poisoned first, keeps its poison.
TEST(AttentionArguments, AreCheckedBeforeAnyWork) {
  SMEMLAB_REQUIRE_GPU();
  const AttentionShape s{
      .q_heads = 2, .kv_heads = 2, .q_len = 64, .kv_len = 64, .head_dim = 64, .scale = 0.125F};
  const Strides dense = attention::dense_strides(2, 64, 64);
  DeviceBuffer<__nv_bfloat16> in(2 * 64 * 64 + 8), out(2 * 64 * 64);
  out.poison(nullptr);
  DeviceBuffer<std::byte> small(64);
  const attention::Args good{.shape = s,
                             .q = in.data(),
                             .q_strides = dense,
                             .k = in.data(),
                             .k_strides = dense,
                             .v = in.data(),
                             .v_strides = dense,
                             .o = out.data(),
                             .o_strides = dense};
  const CublasHandle cublas;
  const auto refused = [&](const char* variant, const std::function<void(attention::Args&)>& change) {
    attention::Args a = good;
    change(a);
    EXPECT_THROW(attention::run(attention::find(variant), a, {nullptr, cublas.get()}), std::invalid_argument)
        << variant;
  };
  refused("unfused", [](attention::Args&) {});  // no workspace
  if (attention::find("persistent").info.why_unavailable().empty())
    refused("persistent", [](attention::Args&) {});  // no workspace for its counter
  refused("unfused", [&](attention::Args& a) {  // too small a workspace
    a.workspace = small.data();
    a.workspace_size = small.size();
  });
  for (const char* variant : {"fused_tile", "split_rows", "swizzled_pipeline", "tma_wgmma"}) {
    refused(variant, [&](attention::Args& a) { a.q = in.data() + 1; });  // misaligned
    refused(variant, [](attention::Args& a) { a.type = DType::f32; });
    refused(variant, [](attention::Args& a) { a.shape.head_dim = 96; });
    refused(variant, [](attention::Args& a) { a.shape.kv_heads = 3; });
    refused(variant, [](attention::Args& a) { a.k_strides.seq = 68; });  // not a multiple of 8
    refused(variant, [](attention::Args& a) { a.o_strides.seq = 56; });  // rows overlap
    refused(variant, [](attention::Args& a) { a.o = nullptr; });
  }
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> got(out.size());
  out.download(got, nullptr);
  std::size_t written = 0;
  for (const auto& x : got) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, &x, 2);
    written += bits != 0xFFFF;
  }
  EXPECT_EQ(written, 0U);
}

}  // namespace
