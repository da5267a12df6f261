// Every registered matmul variant against the double-precision CPU reference, on shapes that
// are multiples of no tile, with padded leading dimensions and alpha/beta other than (1, 0).
// Padding of A and B holds NaN (a variant that reads it fails); padding of C holds a sentinel
// that must survive; with beta = 0, C starts as NaN (a variant that reads it fails).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <exception>
#include <map>
#include <random>
#include <vector>

#include "support/gpu.hpp"
#include "smemlab/cublas.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/matmul.hpp"
#include "bench/device_memory.hpp"
#include "bench/verify.hpp"
#include "matmul/skinny.hpp"
#include "matmul/tuning.hpp"

using namespace smemlab;

namespace {

struct Case {
  int m, n, k;
  int pad;  // extra elements per row in lda, ldb and ldc
  float alpha, beta;
  bool transpose_a = false;  // A stored as K x M (lda = m + pad), B as N x K (ldb = k + 2 pad)
  bool transpose_b = false;
};

std::string case_name(const Case& c) {
  std::string s = std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k);
  if (c.pad > 0) s += "_ld" + std::to_string(c.pad);
  if (c.beta != 0.0F) s += "_beta";
  if (c.transpose_a) s += "_At";
  if (c.transpose_b) s += "_Bt";
  return s;
}

struct Inputs {
  int lda, ldb, ldc;
  std::vector<float> a, b, c;  // as stored
  std::vector<double> expected;  // m x n
};

constexpr float kSentinel = 1234.5F;

// Built once per case and shared by every variant.
const Inputs& inputs_for(const Case& cs) {
  static std::map<std::string, Inputs> cache;
  const std::string key = case_name(cs);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Inputs in;
  in.lda = (cs.transpose_a ? cs.m : cs.k) + cs.pad;
  in.ldb = (cs.transpose_b ? cs.k : cs.n) + 2 * cs.pad;
  in.ldc = cs.n + 3 * cs.pad;
  const float nan = std::nanf("");
  std::mt19937 gen(static_cast<unsigned>(cs.m * 7919 + cs.n * 104729 + cs.k));
  std::uniform_real_distribution<float> dist(-1.0F, 1.0F);
  const auto fill = [&](std::vector<float>& v, int rows, int cols, int ld, float pad_value) {
    v.assign(static_cast<std::size_t>(rows) * ld, pad_value);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) v[static_cast<std::size_t>(r) * ld + c] = dist(gen);
  };
  fill(in.a, cs.transpose_a ? cs.k : cs.m, cs.transpose_a ? cs.m : cs.k, in.lda, nan);
  fill(in.b, cs.transpose_b ? cs.n : cs.k, cs.transpose_b ? cs.k : cs.n, in.ldb, nan);
  fill(in.c, cs.m, cs.n, in.ldc, kSentinel);
  if (cs.beta == 0.0F)  // C must not be read: make reading it visible
    for (int r = 0; r < cs.m; ++r)
      for (int c = 0; c < cs.n; ++c) in.c[static_cast<std::size_t>(r) * in.ldc + c] = nan;
  in.expected.resize(static_cast<std::size_t>(cs.m) * cs.n);
  // The reference reads row-major operands: those stored transposed, transposed back.
  const auto untransposed = [](const std::vector<float>& stored, int rows, int cols, int ld) {
    std::vector<float> out(static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) out[static_cast<std::size_t>(r) * cols + c] = stored[static_cast<std::size_t>(c) * ld + r];
    return out;
  };
  const std::vector<float> a = cs.transpose_a ? untransposed(in.a, cs.m, cs.k, in.lda) : in.a;
  const std::vector<float> b = cs.transpose_b ? untransposed(in.b, cs.k, cs.n, in.ldb) : in.b;
  matmul::reference_gemm(cs.m, cs.n, cs.k, cs.alpha, a.data(), cs.transpose_a ? cs.k : in.lda, b.data(),
                         cs.transpose_b ? cs.n : in.ldb, cs.beta, in.c.data(), in.ldc, in.expected.data(), cs.n);
  return cache.emplace(key, std::move(in)).first->second;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    std::vector<Case> out;
    for (const auto& [m, n, k] : std::vector<std::array<int, 3>>{{1, 1, 1},
                                                                  {1, 64, 1},
                                                                  {7, 13, 5},
                                                                  {31, 33, 17},
                                                                  {33, 31, 65},
                                                                  {127, 129, 255},
                                                                  {1000, 1001, 999},
                                                                  {512, 512, 512},
                                                                  {1000, 1000, 1000},
                                                                  {100, 132, 3000}}) {
      out.push_back({m, n, k, 0, 1.0F, 0.0F});
      out.push_back({m, n, k, 3, 1.5F, -0.75F});  // rows not 16-byte aligned
    }
    // Rows 16-byte aligned, with padding, edges in M, N and K, and beta.
    out.push_back({260, 388, 100, 4, 0.5F, 2.0F});
    // Operands stored transposed.
    out.push_back({127, 129, 255, 3, 1.5F, -0.75F, true, false});
    out.push_back({260, 388, 100, 4, 0.5F, 2.0F, false, true});
    out.push_back({1000, 1001, 999, 0, 1.0F, 0.0F, true, true});
    out.push_back({3, 2000, 3000, 0, 1.0F, 0.0F, false, true});
    // One row of A stored transposed: with lda 1 the same memory as the row (read as is), with
    // lda 4 every fourth element (copied).
    out.push_back({1, 300, 257, 0, 1.0F, 0.5F, true, false});
    out.push_back({1, 300, 257, 3, 1.0F, 0.0F, true, true});
    return out;
  }();
  return all;
}

// One test per variant, over every case: each test is a process of its own under ctest, and a
// process's start on the GPU costs more than most cases.
class MatmulVariant : public testing::TestWithParam<std::string> {};

// Runs `launch` on one case and checks C against the CPU reference, and C's padding; returns C.
template <class Launch>
std::vector<float> expect_matches_reference(const Case& cs, Launch&& launch) {
  const Inputs& in = inputs_for(cs);
  DeviceBuffer<float> a(in.a.size());
  DeviceBuffer<float> b(in.b.size());
  DeviceBuffer<float> c(in.c.size());
  a.upload(in.a, nullptr);
  b.upload(in.b, nullptr);
  c.upload(in.c, nullptr);
  const CublasHandle cublas;
  matmul::GemmArgs args{cs.m, cs.n, cs.k, cs.alpha, a.data(), in.lda, b.data(), in.ldb, cs.beta, c.data(), in.ldc};
  args.transpose_a = cs.transpose_a;
  args.transpose_b = cs.transpose_b;
  launch(args, LaunchContext{nullptr, cublas.get()});
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> got(in.c.size());
  c.download(got, nullptr);

  const ErrorStats err = compare_matrix<float>(cs.m, cs.n, got.data(), in.ldc, in.expected.data(), cs.n);
  const double tol = matmul::relative_tolerance(cs.k);
  EXPECT_TRUE(err.within(tol)) << "relative " << err.relative << ", max element " << err.max_element
                               << ", non-finite " << err.non_finite << ", tolerance " << tol;
  std::size_t clobbered = 0;
  for (int r = 0; r < cs.m; ++r)
    for (int col = cs.n; col < in.ldc; ++col)
      clobbered += std::memcmp(&got[static_cast<std::size_t>(r) * in.ldc + col], &kSentinel,
                               sizeof(float)) != 0;
  EXPECT_EQ(clobbered, 0U) << "elements of C's padding were written";
  return got;
}

TEST_P(MatmulVariant, MatchesTheCpuReferenceOnEveryCase) {
  SMEMLAB_REQUIRE_GPU();
  const matmul::GemmVariant& variant = matmul::find(GetParam());
  for (const Case& cs : cases()) {
    SCOPED_TRACE(case_name(cs));
    try {  // a case that throws is a failure of its own, and the next cases still run
      expect_matches_reference(cs, [&](const matmul::GemmArgs& args, const LaunchContext& ctx) {
        matmul::gemm(variant, args, ctx);
      });
    } catch (const std::exception& e) {
      ADD_FAILURE() << case_name(cs) << " threw: " << e.what();
    }
  }
}

// Every variant with operands stored transposed, through the caller's workspace (garbage on
// entry): the row-major copies first, the variant's own scratch after them.
TEST(MatmulTransposed, EveryVariantInTheCallersWorkspace) {
  SMEMLAB_REQUIRE_GPU();
  for (const auto& variant : matmul::variants())
    for (const Case& cs : cases()) {
      if (!cs.transpose_a && !cs.transpose_b) continue;
      SCOPED_TRACE(std::string(variant.info.name) + " " + case_name(cs));
      expect_matches_reference(cs, [&](matmul::GemmArgs args, const LaunchContext& ctx) {
        DeviceBuffer<std::byte> workspace(matmul::workspace_bytes(variant, args));
        if (workspace.size() > 0) SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.size()));
        args.workspace = workspace.size() > 0 ? workspace.data() : nullptr;
        args.workspace_size = workspace.size();
        matmul::gemm(variant, args, ctx);
        SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());  // before the workspace is freed
      });
    }
}

// 13's ranges of K, whose partial sums a second launch adds in range order, few rows and few
// columns: checked against the CPU reference, and the same bits on a second run.
TEST(MatmulSkinny, RangesOfKGiveTheSameBitsOnEveryRun) {
  SMEMLAB_REQUIRE_GPU();
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (const Case& cs :
       {Case{3, 4096, 4096, 0, 1.0F, 0.0F}, Case{3000, 5, 2000, 3, 1.5F, -0.75F}, Case{2, 2000, 9000, 0, 1.0F, 0.0F},
        Case{9000, 3, 5000, 4, 0.5F, 2.0F}, Case{3000, 2, 2000, 3, 1.0F, 0.0F}}) {
    SCOPED_TRACE(case_name(cs));
    ASSERT_GT(matmul::detail::plan_skinny(cs.m, cs.n, cs.k, sms).ranges, 1);
    const std::vector<float> first = expect_matches_reference(cs, matmul::detail::launch_skinny);
    const std::vector<float> second = expect_matches_reference(cs, matmul::detail::launch_skinny);
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * sizeof(float)), 0);
  }
}

// 13's few-columns kernels (one or two columns: lanes along K; more: a thread a row of C): every
// compiled width and one past the widest (two groups), K shorter than a 32-element chunk, one
// chunk and a bit, and long enough for ranges; A's rows 16-byte aligned (16-byte copies of a
// partial last granule of K included: 1500 x 12 x 33, 2000 x 8 x 1001) or not, and beta.
TEST(MatmulSkinny, FewColumnsOnAnyWidthAndK) {
  SMEMLAB_REQUIRE_GPU();
  for (const Case& cs :
       {Case{1500, 12, 33, 3, 1.5F, -0.75F}, Case{777, 1, 7, 0, 1.0F, 0.0F}, Case{300, 16, 64, 1, 1.0F, 0.5F},
        Case{129, 17, 31, 0, 1.0F, 0.0F}, Case{4097, 2, 97, 2, 0.5F, 2.0F}, Case{2000, 8, 1000, 0, 1.0F, 0.0F},
        Case{90, 4, 5000, 3, 1.0F, 0.0F}, Case{2000, 8, 1001, 3, 1.0F, 0.5F}}) {
    SCOPED_TRACE(case_name(cs));
    expect_matches_reference(cs, matmul::detail::launch_skinny);
  }
}

// The autotuned variant can choose any configuration with any decomposition: each is checked
// here directly, on aligned rows (16-byte copies) and unaligned ones (4-byte copies, or B first
// copied to aligned rows in the workspace), with split-K in one wave (every block sums a share
// of its tile) and in several (the last block sums). Runs go twice on one caller-held
// workspace filled with 0xFF bytes before each: a workspace is scratch, whatever it holds.
class MatmulTiles : public testing::TestWithParam<std::string_view> {};

TEST_P(MatmulTiles, MatchTheCpuReferenceAlignedAndUnaligned) {
  SMEMLAB_REQUIRE_GPU();
  const std::string_view config = GetParam();
  const Case aligned{260, 388, 100, 4, 0.5F, 2.0F};
  const Case unaligned{131, 67, 1025, 3, 1.5F, -0.75F};
  const Case deep{33, 70, 3001, 0, 1.0F, 0.0F};
  const Case wide_deep{300, 700, 2049, 4, 0.5F, 2.0F};
  const matmul::TileShape t = matmul::tile_shape(config);
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const auto split_blocks = [&](const Case& cs, int slices) {
    return static_cast<long long>((cs.m + t.bm - 1) / t.bm) * ((cs.n + t.bn - 1) / t.bn) * slices;
  };
  ASSERT_LE(split_blocks(unaligned, 3), static_cast<long long>(t.blocks_per_sm) * sms) << "not one wave";
  ASSERT_LE(split_blocks(deep, 64), static_cast<long long>(t.blocks_per_sm) * sms) << "not one wave";
  ASSERT_GT(split_blocks(wide_deep, 64), static_cast<long long>(t.blocks_per_sm) * sms) << "one wave";
  for (const auto& [cs, choice] : {std::pair{aligned, matmul::TileChoice{config, 0, 1, false}},
                                   std::pair{aligned, matmul::TileChoice{config, 8, 1, true}},
                                   std::pair{unaligned, matmul::TileChoice{config, 8, 3, false}},
                                   std::pair{unaligned, matmul::TileChoice{config, 0, 1, true}},
                                   std::pair{unaligned, matmul::TileChoice{config, 8, 1, false, true}},
                                   std::pair{unaligned, matmul::TileChoice{config, 8, 3, false, true}},
                                   std::pair{unaligned, matmul::TileChoice{config, 0, 1, true, true}},
                                   std::pair{aligned, matmul::TileChoice{config, 8, 1, false, true}},
                                   std::pair{deep, matmul::TileChoice{config, 0, 64, false}},
                                   std::pair{deep, matmul::TileChoice{config, 8, 1, true}},
                                   std::pair{wide_deep, matmul::TileChoice{config, 8, 64, false}}}) {
    SCOPED_TRACE(case_name(cs) + (choice.split_last_wave ? " last-wave split" : " slices " + std::to_string(choice.slices)) +
                 (choice.align_b ? ", B copied to aligned rows" : ""));
    expect_matches_reference(cs, [&](const matmul::GemmArgs& args, const LaunchContext& ctx) {
      const std::size_t bytes = matmul::workspace_bytes(choice, args);
      const bool copies_b = choice.align_b && args.ldb % 4 != 0;
      if (choice.slices == 1 && !choice.split_last_wave) EXPECT_EQ(bytes > 0, copies_b);
      DeviceBuffer<std::byte> workspace(std::max<std::size_t>(bytes, 1));
      matmul::GemmArgs with = args;
      with.workspace = workspace.data();
      with.workspace_size = bytes;
      // First on a copy of C, then on C itself, each on a workspace of garbage.
      DeviceBuffer<float> scratch(static_cast<std::size_t>(args.m) * args.ldc);
      SMEMLAB_CUDA_CHECK(cudaMemcpy(scratch.data(), args.c, scratch.size() * sizeof(float), cudaMemcpyDeviceToDevice));
      matmul::GemmArgs first = with;
      first.c = scratch.data();
      SMEMLAB_CUDA_CHECK(cudaMemsetAsync(workspace.data(), 0xFF, workspace.size(), ctx.stream));
      matmul::gemm_tiles(choice, first, ctx);
      SMEMLAB_CUDA_CHECK(cudaMemsetAsync(workspace.data(), 0xFF, workspace.size(), ctx.stream));
      matmul::gemm_tiles(choice, with, ctx);
    });
  }
}

// A workspace that is too small is refused before anything is launched: C keeps what it held,
// also where the last-wave split would launch whole tiles before its divided ones.
TEST(MatmulWorkspace, ATooSmallOneIsRefusedBeforeAnyWork) {
  SMEMLAB_REQUIRE_GPU();
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const char* config = "64x64x8_s4_w32x32_t8x4";
  const matmul::TileShape t = matmul::tile_shape(config);
  const int n = t.bn * (t.blocks_per_sm * sms + 1);  // one tile past a full wave
  const int k = 4096;
  DeviceBuffer<float> a(static_cast<std::size_t>(t.bm) * k);
  DeviceBuffer<float> b(static_cast<std::size_t>(k) * n);
  DeviceBuffer<float> c(static_cast<std::size_t>(t.bm) * n);
  DeviceBuffer<float> workspace(1);
  fill_uniform(a.data(), a.size(), 1, -1.0F, 1.0F, nullptr);
  fill_uniform(b.data(), b.size(), 2, -1.0F, 1.0F, nullptr);
  std::vector<float> before(c.size(), kSentinel);
  SMEMLAB_CUDA_CHECK(cudaMemcpy(c.data(), before.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
  matmul::GemmArgs args{t.bm, n, k, 1.0F, a.data(), k, b.data(), n, 0.0F, c.data(), n};
  for (const matmul::TileChoice choice : {matmul::TileChoice{config, 0, 8, false},
                                          matmul::TileChoice{config, 0, 1, true}}) {
    ASSERT_GT(matmul::workspace_bytes(choice, args), 0U);
    args.workspace = workspace.data();
    args.workspace_size = matmul::workspace_bytes(choice, args) - 1;
    EXPECT_THROW(matmul::gemm_tiles(choice, args, {}), std::invalid_argument);
  }
  SMEMLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> after(c.size());
  SMEMLAB_CUDA_CHECK(cudaMemcpy(after.data(), c.data(), c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(after, before);
}

// One workspace for several shapes and decompositions in turn, filled with 0xFF bytes once:
// each call sets up what it keeps there, whatever the call before left.
TEST(MatmulWorkspace, OneBufferOfGarbageServesAlternatingShapes) {
  SMEMLAB_REQUIRE_GPU();
  const char* config = "64x64x8_s4_w32x32_t8x4";
  const std::array<std::pair<Case, matmul::TileChoice>, 3> calls{
      std::pair{Case{131, 67, 1025, 3, 1.5F, -0.75F}, matmul::TileChoice{config, 8, 3, false, true}},
      std::pair{Case{33, 70, 3001, 0, 1.0F, 0.0F}, matmul::TileChoice{config, 0, 64, false}},
      std::pair{Case{300, 700, 2049, 4, 0.5F, 2.0F}, matmul::TileChoice{config, 8, 1, true}}};
  DeviceBuffer<std::byte> workspace(64 << 20);
  SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0xFF, workspace.size()));
  for (int round = 0; round < 2; ++round)
    for (const auto& [cs, choice] : calls) {
      SCOPED_TRACE(case_name(cs) + ", round " + std::to_string(round));
      expect_matches_reference(cs, [&](const matmul::GemmArgs& args, const LaunchContext& ctx) {
        ASSERT_LE(matmul::workspace_bytes(choice, args), workspace.size());
        matmul::GemmArgs with = args;
        with.workspace = workspace.data();
        with.workspace_size = workspace.size();
        matmul::gemm_tiles(choice, with, ctx);
      });
    }
}

// The model counts blocks_per_sm slots per SM for each configuration; the last-wave split
// divides the tiles past the last full wave of the slots the device keeps resident. The two
// must agree: with one tile past a full wave, that tile is divided into one block per slot.
TEST_P(MatmulTiles, KeepTheirDeclaredBlocksPerSmResident) {
  SMEMLAB_REQUIRE_GPU();
  const std::string_view config = GetParam();
  const matmul::TileShape t = matmul::tile_shape(config);
  int sms = 0;
  SMEMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int slots = t.blocks_per_sm * sms;
  const int k = t.bk * slots;
  DeviceBuffer<float> c(1);  // only sizes are read
  const matmul::GemmArgs args{t.bm, t.bn * (slots + 1), k, 1.0F, c.data(), k, c.data(), t.bn * (slots + 1),
                              0.0F, c.data(), t.bn * (slots + 1)};
  const std::size_t bytes = matmul::workspace_bytes(matmul::TileChoice{config, 0, 1, true}, args);
  EXPECT_EQ((bytes - 256) / (sizeof(float) * t.bm * t.bn), static_cast<std::size_t>(slots));
}

INSTANTIATE_TEST_SUITE_P(Matmul, MatmulTiles, testing::ValuesIn(matmul::tile_configs()),
                         [](const auto& info) { return std::string(info.param); });

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const auto& v : matmul::variants()) out.emplace_back(v.info.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Matmul, MatmulVariant, testing::ValuesIn(variant_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
