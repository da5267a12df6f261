// The attention family's argument checks and its CPU reference, on cases worked by hand: the
// masking rule (bottom-right causal, rows that see no key), grouped-query heads, strided rows;
// and what the benchmark's cudnn row refuses.
#include "smemlab/attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "attention/tile_model.hpp"
#include "bench/cudnn_attention.hpp"

using namespace smemlab::attention;

namespace {

constexpr int kDim = 64;

// A dense [batch, heads, len, kDim] tensor whose element (b, h, i, c) is f(b, h, i, c).
template <class F>
std::vector<float> tensor(int batch, int heads, int len, F f) {
  std::vector<float> out(static_cast<std::size_t>(batch) * heads * len * kDim);
  std::size_t at = 0;
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < len; ++i)
        for (int c = 0; c < kDim; ++c) out[at++] = f(b, h, i, c);
  return out;
}

struct Result {
  std::vector<double> out;
  std::vector<double> lse;
};

Result run(const Shape& s, const std::vector<float>& q, const std::vector<float>& k,
           const std::vector<float>& v) {
  Result r{std::vector<double>(static_cast<std::size_t>(s.batch) * s.q_heads * s.q_len * kDim),
           std::vector<double>(static_cast<std::size_t>(s.batch) * s.q_heads * s.q_len)};
  reference(s, q, dense_strides(s.q_heads, s.q_len, kDim), k, dense_strides(s.kv_heads, s.kv_len, kDim), v,
            dense_strides(s.kv_heads, s.kv_len, kDim), r.out, r.lse);
  return r;
}

double value(int h, int j, int c) { return 100.0 * h + 10.0 * j + c; }  // V's element

}  // namespace

// Q = 0: every visible key scores 0, so a row's output is the mean of the V rows it sees and its
// log-sum-exp is the log of their count.
TEST(AttentionReference, CausalMaskIsAlignedToTheBottomRight) {
  const Shape s{.q_len = 2, .kv_len = 3, .head_dim = kDim, .causal = true, .scale = 0.125F};
  const auto q = tensor(1, 1, 2, [](int, int, int, int) { return 0.0F; });
  const auto k = tensor(1, 1, 3, [](int, int, int j, int c) { return static_cast<float>(j + c); });
  const auto v = tensor(1, 1, 3, [](int, int h, int j, int c) { return static_cast<float>(value(h, j, c)); });
  const Result r = run(s, q, k, v);
  for (int c = 0; c < kDim; ++c) {
    EXPECT_DOUBLE_EQ(r.out[c], (value(0, 0, c) + value(0, 1, c)) / 2);  // row 0 sees keys 0 and 1
    EXPECT_DOUBLE_EQ(r.out[kDim + c], (value(0, 0, c) + value(0, 1, c) + value(0, 2, c)) / 3);
  }
  EXPECT_DOUBLE_EQ(r.lse[0], std::log(2.0));
  EXPECT_DOUBLE_EQ(r.lse[1], std::log(3.0));
}

TEST(AttentionReference, RowsThatSeeNoKeyAreZeroWithMinusInfiniteLogSumExp) {
  const Shape s{.q_len = 3, .kv_len = 1, .head_dim = kDim, .causal = true, .scale = 0.125F};
  const auto q = tensor(1, 1, 3, [](int, int, int, int) { return 1.0F; });
  const auto k = tensor(1, 1, 1, [](int, int, int, int) { return 1.0F; });
  const auto v = tensor(1, 1, 1, [](int, int, int, int c) { return static_cast<float>(c); });
  const Result r = run(s, q, k, v);
  for (int i = 0; i < 2; ++i) {  // rows 0 and 1 see keys up to i - 2: none
    EXPECT_EQ(r.lse[i], -std::numeric_limits<double>::infinity());
    for (int c = 0; c < kDim; ++c) EXPECT_EQ(r.out[i * kDim + c], 0.0);
  }
  EXPECT_DOUBLE_EQ(r.lse[2], 0.125 * kDim);  // one key, score q.k * scale
  for (int c = 0; c < kDim; ++c) EXPECT_DOUBLE_EQ(r.out[2 * kDim + c], c);
  const Shape empty{.q_len = 2, .kv_len = 0, .head_dim = kDim, .scale = 1.0F};
  const Result none = run(empty, tensor(1, 1, 2, [](int, int, int, int) { return 1.0F; }), {}, {});
  EXPECT_EQ(none.lse[1], -std::numeric_limits<double>::infinity());
}

// One key scores 100 above the others: the output is its V row to within e^-100.
TEST(AttentionReference, ADominantKeyTakesTheWholeWeight) {
  const Shape s{.q_len = 1, .kv_len = 4, .head_dim = kDim, .scale = 1.0F};
  const auto q = tensor(1, 1, 1, [](int, int, int, int c) { return c == 0 ? 100.0F : 0.0F; });
  const auto k = tensor(1, 1, 4, [](int, int, int j, int c) { return c == 0 && j == 2 ? 1.0F : 0.0F; });
  const auto v = tensor(1, 1, 4, [](int, int h, int j, int c) { return static_cast<float>(value(h, j, c)); });
  const Result r = run(s, q, k, v);
  for (int c = 0; c < kDim; ++c) EXPECT_NEAR(r.out[c], value(0, 2, c), 1e-30 * value(0, 3, kDim));
  EXPECT_NEAR(r.lse[0], 100.0 + std::log1p(3 * std::exp(-100.0)), 1e-12);
}

// Four query heads over two kv heads: heads 0 and 1 read kv head 0, heads 2 and 3 kv head 1.
TEST(AttentionReference, QueryHeadsShareKvHeadsInGroups) {
  const Shape s{
      .batch = 2, .q_heads = 4, .kv_heads = 2, .q_len = 1, .kv_len = 2, .head_dim = kDim, .scale = 0.5F};
  const auto q = tensor(2, 4, 1, [](int, int, int, int) { return 0.0F; });
  const auto k = tensor(2, 2, 2, [](int, int, int, int) { return 1.0F; });
  const auto v =
      tensor(2, 2, 2, [](int b, int h, int j, int c) { return static_cast<float>(b + value(h, j, c)); });
  const Result r = run(s, q, k, v);
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 4; ++h)
      for (int c = 0; c < kDim; ++c)
        EXPECT_DOUBLE_EQ(r.out[(b * 4 + h) * kDim + c], b + (value(h / 2, 0, c) + value(h / 2, 1, c)) / 2);
}

// Rows padded to 72 elements and heads stored before batches give the dense result.
TEST(AttentionReference, StridedLayoutsGiveTheDenseResult) {
  const Shape s{
      .batch = 2, .q_heads = 2, .kv_heads = 2, .q_len = 3, .kv_len = 5, .head_dim = kDim, .scale = 0.125F};
  const auto element = [](int b, int h, int i, int c) {
    return std::sin(1.0F + b + 2.0F * h + 3.0F * i + 0.1F * c);
  };
  const auto q = tensor(2, 2, 3, element);
  const auto k = tensor(2, 2, 5, [&](int b, int h, int j, int c) { return element(b, h, j, c + 7); });
  const auto v = tensor(2, 2, 5, [&](int b, int h, int j, int c) { return element(b, h, j, c + 13); });
  const Result dense = run(s, q, k, v);
  // [heads, batch, len, 72]: seq stride 72, batch stride len * 72, head stride 2 * len * 72.
  const auto strided = [&](const std::vector<float>& t, int len) {
    std::vector<float> out(static_cast<std::size_t>(2 * 2 * len * 72), std::nanf(""));
    for (int b = 0; b < 2; ++b)
      for (int h = 0; h < 2; ++h)
        for (int i = 0; i < len; ++i)
          for (int c = 0; c < kDim; ++c)
            out[static_cast<std::size_t>(((h * 2 + b) * len + i) * 72 + c)] =
                t[((b * 2 + h) * len + i) * kDim + c];
    return out;
  };
  const auto strides = [](int len) { return Strides{.batch = len * 72, .head = 2 * len * 72, .seq = 72}; };
  Result r{std::vector<double>(dense.out.size()), std::vector<double>(dense.lse.size())};
  reference(s, strided(q, 3), strides(3), strided(k, 5), strides(5), strided(v, 5), strides(5), r.out, r.lse);
  EXPECT_EQ(r.out, dense.out);
  EXPECT_EQ(r.lse, dense.lse);
}

TEST(AttentionArgs, BadShapesAndStridesAreRefused) {
  const Shape good{
      .batch = 2, .q_heads = 8, .kv_heads = 2, .q_len = 7, .kv_len = 9, .head_dim = 128, .scale = 0.1F};
  const Strides q = dense_strides(8, 7, 128);
  const Strides kv = dense_strides(2, 9, 128);
  EXPECT_NO_THROW(validate(good, q, kv, kv, q));
  const auto refused = [&](Shape s, Strides qs, Strides ks) {
    EXPECT_THROW(validate(s, qs, ks, ks, qs), std::invalid_argument);
  };
  // The good shape with one field changed.
  const auto with = [&](auto change) {
    Shape s = good;
    change(s);
    return s;
  };
  refused(with([](Shape& s) { s.head_dim = 96; }), q, kv);
  refused(with([](Shape& s) { s.kv_heads = 3; }), q, kv);
  refused(with([](Shape& s) { s.q_len = 0; }), q, kv);
  refused(with([](Shape& s) { s.scale = 0.0F; }), q, kv);
  refused(with([](Shape& s) { s.scale = std::nanf(""); }), q, kv);
  refused(good, Strides{q.batch, q.head, 132}, kv);   // not a multiple of 8
  refused(good, q, Strides{kv.batch, kv.head, 120});  // rows overlap
  EXPECT_NO_THROW(validate(with([](Shape& s) { s.kv_len = 0; }), q, kv, kv, q));
}

// The benchmark's cudnn row refuses, before it touches a GPU, what its graph does not express: a
// causal mask with q_len != kv_len (the graph aligns it to the top left), no keys, no
// log-sum-exp output. A build without cuDNN refuses every call.
TEST(CudnnAttentionRow, RefusesWhatItsGraphDoesNotExpress) {
  float lse = 0.0F;
  Args a{.shape = {.q_heads = 2, .kv_heads = 2, .q_len = 8, .kv_len = 16, .head_dim = 64, .causal = true,
                   .scale = 0.125F},
         .lse = &lse};
  if (!smemlab::CudnnAttention::why_unavailable().empty()) {
    EXPECT_THROW(smemlab::CudnnAttention{a}, std::logic_error);
    return;
  }
  // The reason, not cuDNN's own failure to start (which a machine without a GPU would also give).
  const auto refusal = [&] {
    try {
      smemlab::CudnnAttention refused{a};
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal().find("q_len must equal kv_len"), std::string::npos) << refusal();
  a.shape.causal = false;
  a.shape.kv_len = 0;
  EXPECT_NE(refusal().find("no keys"), std::string::npos) << refusal();
  a.shape.kv_len = 16;
  a.lse = nullptr;
  EXPECT_NE(refusal().find("lse must be given"), std::string::npos) << refusal();
}

// The scores a Q tiling computes, padding included, worked by hand: every row of a Q tile times
// every key tile up to the last key its last row sees.
TEST(AttentionTileModel, CountsThePaddedRowsAndKeysATilingComputes) {
  using smemlab::attention::detail::computed_scores;
  const Shape unmasked{.q_len = 300, .kv_len = 600, .head_dim = 64};
  EXPECT_EQ(computed_scores(unmasked, 128, 256), 3LL * 128 * 768);  // 3 Q tiles, 3 key tiles of 256
  EXPECT_EQ(computed_scores(unmasked, 192, 128), 2LL * 192 * 640);  // 2 Q tiles, 5 key tiles of 128
  const Shape causal{.q_len = 256, .kv_len = 256, .head_dim = 64, .causal = true};
  EXPECT_EQ(computed_scores(causal, 128, 128), 128LL * 128 + 128LL * 256);
  // Fewer queries than keys: the mask is aligned to the bottom right, so row 99 sees all 300.
  const Shape fewer{.q_len = 100, .kv_len = 300, .head_dim = 64, .causal = true};
  EXPECT_EQ(computed_scores(fewer, 128, 128), 128LL * 384);
  // More queries than keys: rows 0 to 199 see none.
  const Shape more{.q_len = 300, .kv_len = 100, .head_dim = 64, .causal = true};
  EXPECT_EQ(computed_scores(more, 128, 128), 128LL * 0 + 128LL * 128 + 128LL * 128);
  EXPECT_EQ(computed_scores(Shape{.q_len = 5, .kv_len = 0, .head_dim = 64}, 192, 128), 0);
}

// Three consumers (Q tiles of 192 rows) are taken where they pad little: not at N = 1,024, whose
// 192-row tiles pad 12.5% of the rows (and a third of the scores under a causal mask), but at
// 16,384 with and without a mask.
TEST(AttentionTileModel, ThreeConsumersWhereTheirTilesPadLittle) {
  using smemlab::attention::detail::three_consumers_pay;
  const auto square = [](int n, bool causal) {
    return Shape{.batch = 16, .q_heads = 16, .kv_heads = 16, .q_len = n, .kv_len = n, .head_dim = 64,
                 .causal = causal};
  };
  EXPECT_FALSE(three_consumers_pay(square(1024, false)));
  EXPECT_FALSE(three_consumers_pay(square(1024, true)));
  EXPECT_TRUE(three_consumers_pay(square(16384, false)));
  EXPECT_TRUE(three_consumers_pay(square(16384, true)));
  EXPECT_FALSE(three_consumers_pay(Shape{.q_len = 5, .kv_len = 0, .head_dim = 64}));
}

// The tiling step 07 takes for each head-dim-64 case of the GPU tests that gives blocks several
// items, so that each of its three tilings keeps a case: two consumers with 256-key tiles (no
// mask), two with 128-key tiles (causal), three consumers with and without a mask.
TEST(AttentionTileModel, TheGpuTestsMeetEveryTiling) {
  using smemlab::attention::detail::three_consumers_pay;
  const auto shape = [](int q_len, int kv_len, bool causal) {
    return Shape{.q_len = q_len, .kv_len = kv_len, .head_dim = 64, .causal = causal};
  };
  EXPECT_FALSE(three_consumers_pay(shape(100, 300, false)));  // many_short_tiles_head_dim_64_unmasked
  EXPECT_FALSE(three_consumers_pay(shape(300, 129, true)));   // many_tiles_head_dim_64
  EXPECT_TRUE(three_consumers_pay(shape(300, 600, false)));   // many_tiles_head_dim_64_unmasked
  EXPECT_TRUE(three_consumers_pay(shape(700, 900, true)));    // many_tiles_head_dim_64_causal_long
  EXPECT_TRUE(three_consumers_pay(shape(260, 400, true)));    // more_tiles_than_sms
}
