#include <gtest/gtest.h>

#include <algorithm>

#include "bench/bench.hpp"
#include "bench/registry.hpp"
#include "smemlab/error.hpp"

using namespace smemlab;

namespace {
BenchRequest request(std::vector<std::string> families, std::vector<std::string> variants,
                     std::vector<std::string> sizes) {
  BenchRequest r;
  r.families = std::move(families);
  r.variants = std::move(variants);
  r.sizes = std::move(sizes);
  return r;
}
}  // namespace

TEST(Plan, DefaultsRunEveryFamilyAtItsDefaultSizes) {
  const BenchPlan plan = plan_bench({});
  const auto in_default = std::count_if(families().begin(), families().end(),
                                        [](const BenchFamily* f) { return f->spec().in_default_run; });
  ASSERT_EQ(plan.items.size(), static_cast<std::size_t>(in_default));
  for (const auto& item : plan.items) EXPECT_NE(item.family->name(), "matmul-tiles");
  const auto& matmul = plan.items.front();
  EXPECT_EQ(matmul.family->name(), "matmul");
  EXPECT_EQ(matmul.sizes.size(), matmul.family->spec().sizes.size());
  EXPECT_LT(matmul.sizes.size(), matmul.family->spec().full_sizes.size());  // a first look
  EXPECT_NE(std::find(matmul.sizes.begin(), matmul.sizes.end(), Shape{{4097, 4097, 4097}}),
            matmul.sizes.end());  // a multiple of no tile
  // All variants but the reference, which every run includes anyway.
  EXPECT_EQ(matmul.variants.size(), matmul.family->variants().size() - 1);
  EXPECT_EQ(std::count(matmul.variants.begin(), matmul.variants.end(), "cublas"), 0);
}

TEST(Plan, FullRunsEachFamilysWholeSweep) {
  BenchRequest full;
  full.full = true;
  const BenchPlan plan = plan_bench(full);
  for (const auto& item : plan.items)
    EXPECT_EQ(item.sizes.size(), item.family->spec().full_sizes.size()) << item.family->name();
  EXPECT_EQ(plan.items.front().sizes.front(), (Shape{{256, 256, 256}}));
  // Rows: every variant, the reference included, at every size.
  std::size_t rows = 0;
  for (const auto& item : plan.items) rows += item.sizes.size() * item.family->variants().size();
  EXPECT_EQ(planned_rows(plan), rows);
  full.sizes = {"1024"};
  EXPECT_THROW((void)plan_bench(full), UsageError);  // --full and --size contradict each other
}

TEST(Plan, SelectsVariantsByNameOrFamilyName) {
  const BenchPlan plan = plan_bench(request({}, {"naive", "matmul/smem_tile32", "naive"}, {"7x13x5"}));
  ASSERT_EQ(plan.items.size(), 1U);
  EXPECT_EQ(plan.items[0].variants, (std::vector<std::string_view>{"naive", "smem_tile32"}));
  EXPECT_EQ(plan.items[0].sizes, (std::vector<Shape>{Shape{{7, 13, 5}}}));
}

TEST(Plan, ReferenceAloneIsAValidSelection) {
  const BenchPlan plan = plan_bench(request({"matmul"}, {"cublas"}, {"64"}));
  ASSERT_EQ(plan.items.size(), 1U);
  EXPECT_TRUE(plan.items[0].variants.empty());
}

TEST(Plan, RejectsBadRequests) {
  EXPECT_THROW((void)plan_bench(request({"nope"}, {}, {})), UsageError);
  EXPECT_THROW((void)plan_bench(request({}, {"nope"}, {})), UsageError);
  EXPECT_THROW((void)plan_bench(request({}, {"nope/naive"}, {})), UsageError);
  EXPECT_THROW((void)plan_bench(request({}, {"matmul/nope"}, {})), UsageError);
  EXPECT_THROW((void)plan_bench(request({}, {}, {"0"})), UsageError);
  EXPECT_THROW((void)plan_bench(request({}, {}, {"-4"})), UsageError);
  EXPECT_THROW((void)plan_bench(request({"matmul"}, {}, {"64x64"})), UsageError);  // N or MxNxK
  EXPECT_THROW((void)plan_bench(request({"matmul"}, {}, {"3000000000"})), UsageError);
  BenchRequest reps;
  reps.options.reps = 0;
  EXPECT_THROW((void)plan_bench(reps), UsageError);
  BenchRequest warmup;
  warmup.options.warmup = -1;
  EXPECT_THROW((void)plan_bench(warmup), UsageError);
}

TEST(Plan, UnnamedFamiliesTakeTheSizesThatFitTheirForm) {
  const BenchPlan plan = plan_bench(request({}, {}, {"64x32"}));  // RxC: transpose only
  ASSERT_EQ(plan.items.size(), 1U);
  EXPECT_EQ(plan.items[0].family->name(), "transpose");
  EXPECT_THROW((void)plan_bench(request({"matmul"}, {}, {"64x32"})), UsageError);  // named: an error
  EXPECT_THROW((void)plan_bench(request({}, {}, {"1x2x3x4"})), UsageError);         // malformed
  EXPECT_THROW((void)plan_bench(request({}, {"ideal"}, {"1000"})), UsageError);     // banks: stride <= 256
}

TEST(Plan, MemoryCheckRejectsSizesThatCannotFit) {
  const BenchPlan plan = plan_bench(request({}, {"naive"}, {"100000"}));
  DeviceInfo small;
  small.name = "test device";
  small.global_mem_bytes = std::size_t{80} << 30;
  small.l2_bytes = std::size_t{50} << 20;
  EXPECT_THROW(check_fits(plan, small), UsageError);  // 3 x 40 GB of floats
  EXPECT_NO_THROW(check_fits(plan_bench(request({}, {"naive"}, {"8192"})), small));
  // 3 x 19.6 GB of floats fit; row-major copies of both operands stored transposed (39 GB) do not.
  BenchRequest transposed = request({}, {"naive"}, {"70000"});
  EXPECT_NO_THROW(check_fits(plan_bench(transposed), small));
  transposed.transpose = "ab";
  EXPECT_THROW(check_fits(plan_bench(transposed), small), UsageError);
  transposed.transpose = "a";
  EXPECT_NO_THROW(check_fits(plan_bench(transposed), small));
}

TEST(Plan, RandomShapesAreReproducibleAndWithinTheirBounds) {
  const std::vector<std::string> shapes = random_gemm_sizes(200, 12345);
  ASSERT_EQ(shapes.size(), 200U);
  EXPECT_EQ(shapes, random_gemm_sizes(200, 12345));
  EXPECT_NE(shapes, random_gemm_sizes(200, 12346));
  int small = 0;
  for (const auto& text : shapes) {
    const GemmShape g = gemm_shape(parse_shape(text));
    for (const int side : {g.m, g.n, g.k}) {
      EXPECT_GE(side, 1) << text;
      EXPECT_LE(side, 16384) << text;
    }
    EXPECT_LE(static_cast<double>(g.m) * g.n * g.k, 0x1.0p37) << text;
    small += g.m < 128 ? 1 : 0;
  }
  // Log-uniform from 1 to 2^14: half the sides below 128, give or take the sample.
  EXPECT_GT(small, 60);
  EXPECT_LT(small, 140);
}

TEST(Plan, RandomSizesGoToTheGemmFamiliesWithTheirSeed) {
  const BenchPlan plan = plan_bench(request({"matmul", "tensor-matmul"}, {}, {"random:5:42"}));
  ASSERT_EQ(plan.items.size(), 2U);
  for (const auto& item : plan.items) EXPECT_EQ(item.sizes.size(), 5U);
  EXPECT_EQ(plan.items[0].sizes, plan.items[1].sizes);
  ASSERT_TRUE(plan.options.random_seed.has_value());
  EXPECT_EQ(*plan.options.random_seed, 42U);
  // Without a seed one is drawn, and kept.
  EXPECT_TRUE(plan_bench(request({"matmul"}, {}, {"random:2"})).options.random_seed.has_value());
  // Unnamed families: only the GEMM families take MxNxK shapes.
  for (const auto& item : plan_bench(request({}, {}, {"random:3:1"})).items)
    EXPECT_TRUE(item.family->spec().form == SizeForm::gemm) << item.family->name();
  for (const char* bad : {"random:", "random:0", "random:1001", "random:x", "random:3:", "random:3:-1", "random:3:4:5"})
    EXPECT_THROW((void)plan_bench(request({"matmul"}, {}, {bad})), UsageError) << bad;
}
