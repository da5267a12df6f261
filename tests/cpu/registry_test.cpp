#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <set>

#include "bench/bench.hpp"
#include "bench/registry.hpp"
#include "smemlab/error.hpp"
#include "smemlab/matmul.hpp"
#include "smemlab/variant.hpp"
#include "smemlab/transpose.hpp"

using namespace smemlab;

TEST(Registry, NamesAreUniqueAndWellFormed) {
  const auto variants = registered_variants();
  ASSERT_FALSE(variants.empty());
  std::set<std::string> ids;
  const std::regex name_form("[a-z][a-z0-9_]*");
  for (const auto& v : variants) {
    EXPECT_TRUE(ids.insert(v.id()).second) << "duplicate " << v.id();
    EXPECT_TRUE(std::regex_match(std::string(v.name), name_form)) << v.id();
    EXPECT_FALSE(v.description.empty()) << v.id();
    EXPECT_FALSE(v.technique.empty()) << v.id();
    EXPECT_EQ(std::string(v.description).find('\n'), std::string::npos) << v.id();
  }
}

TEST(Registry, EachFamilyHasExactlyOneReference) {
  std::map<std::string, int> references;
  for (const auto& v : registered_variants()) references[std::string(v.family)] += v.reference ? 1 : 0;
  for (const auto& [family, count] : references) EXPECT_EQ(count, 1) << family;
}

TEST(Registry, BenchFamiliesCoverTheRegistry) {
  std::set<std::string> from_families;
  for (const BenchFamily* f : families())
    if (f->spec().in_default_run)
      for (const auto& v : f->variants()) from_families.insert(v.id());
  std::set<std::string> from_registry;
  for (const auto& v : registered_variants()) from_registry.insert(v.id());
  EXPECT_EQ(from_families, from_registry);
}

TEST(Registry, TheTileSweepOffersEveryConfigurationOfTheAutotunedVariant) {
  const BenchFamily& tiles = find_family("matmul-tiles");
  EXPECT_FALSE(tiles.spec().in_default_run);
  const auto variants = tiles.variants();
  EXPECT_TRUE(variants.front().reference);
  for (const auto config : matmul::tile_configs()) {
    const std::string prefix = std::string(config) + "/";
    const auto named = [&](const VariantInfo& v) { return v.name.starts_with(prefix); };
    EXPECT_EQ(std::count_if(variants.begin(), variants.end(), named), 12) << config;
  }
}

TEST(Registry, TheTuningTableNamesCompiledConfigurationsForEveryShapeClass) {
  const auto table = matmul::tuning_table();
  ASSERT_FALSE(table.empty());
  const auto configs = matmul::tile_configs();
  for (const auto& e : table) {
    EXPECT_NE(std::find(configs.begin(), configs.end(), e.choice.config), configs.end())
        << e.choice.config;
    EXPECT_GE(e.choice.slices, 1);
  }
  for (const auto shape : {matmul::ShapeClass::small, matmul::ShapeClass::unaligned,
                           matmul::ShapeClass::square,
                           matmul::ShapeClass::tall, matmul::ShapeClass::wide}) {
    const auto& d = table.front();
    EXPECT_EQ(std::count_if(table.begin(), table.end(),
                            [&](const matmul::TuningEntry& e) {
                              return e.shape == shape && e.cc_major == d.cc_major &&
                                     e.cc_minor == d.cc_minor && e.sms == d.sms;
                            }),
              1)
        << matmul::shape_class_name(shape);
  }
}

// The table in src/matmul/tuning_table.cpp is the sweep's output, not numbers typed in.
TEST(Registry, SplitKFillsTheGpuOnlyWhenTheOutputHasTooFewTiles) {
  using smemlab::matmul::split_k_for_waves;
  constexpr int kSms = 132;
  // 256x256 in 64x128 tiles: 8 blocks for 132 SMs; K cut until about two blocks per SM.
  EXPECT_EQ(split_k_for_waves("64x128x8_s3_w32x64_t8x8", 256, 256, 65536, kSms), 33);
  EXPECT_EQ(split_k_for_waves("64x128x8_s3_w32x64_t8x8", 128, 128, 131072, kSms), 64);  // the bound
  EXPECT_EQ(split_k_for_waves("64x128x8_s3_w32x64_t8x8", 256, 256, 256, kSms), 1);      // K too short
  EXPECT_EQ(split_k_for_waves("64x128x8_s3_w32x64_t8x8", 512, 512, 512, kSms), 1);    // slices < 1024 of K
  EXPECT_EQ(split_k_for_waves("64x128x8_s3_w32x64_t8x8", 100, 132, 3000, kSms), 2);
  EXPECT_EQ(split_k_for_waves("64x128x8_s3_w32x64_t8x8", 1024, 1024, 1024, kSms), 1);   // 128 tiles
  EXPECT_EQ(split_k_for_waves("128x256x8_s3_w32x128_t8x16_zz", 4096, 4096, 4096, kSms), 1);
  EXPECT_THROW((void)split_k_for_waves("unnamed", 1, 1, 1, kSms), smemlab::UsageError);
}

TEST(Registry, TheTuningTableIsTheCommittedSweepsChoice) {
  std::ifstream in(std::string(SMEMLAB_DOCS_DATA_DIR) + "/matmul-tuning-h200.json");
  ASSERT_TRUE(in) << "missing matmul-tuning-h200.json";
  const auto sweep = nlohmann::json::parse(in);
  const auto& device = sweep.at("device");
  std::vector<std::string> from_sweep;
  for (const auto& c : sweep.at("choices"))
    from_sweep.push_back(fmt::format("{}.{} {} {} {} g{} k{}", device.at("cc_major").get<int>(),
                                     device.at("cc_minor").get<int>(), device.at("sms").get<int>(),
                                     c.at("shape").get<std::string>(), c.at("config").get<std::string>(),
                                     c.at("group").get<int>(), c.at("slices").get<int>()));
  std::vector<std::string> from_table;
  for (const auto& e : matmul::tuning_table())
    from_table.push_back(fmt::format("{}.{} {} {} {} g{} k{}", e.cc_major, e.cc_minor, e.sms,
                                     matmul::shape_class_name(e.shape), e.choice.config,
                                     e.choice.group, e.choice.slices));
  EXPECT_EQ(from_table, from_sweep);
  EXPECT_TRUE(sweep.at("unverified").empty());
}

TEST(Registry, ShapesAreClassifiedByTilesPerSmAndAspect) {
  EXPECT_EQ(matmul::classify(1024, 1024, 132, true), matmul::ShapeClass::small);  // 64 tiles
  EXPECT_EQ(matmul::classify(1025, 1025, 132, false), matmul::ShapeClass::small);
  EXPECT_EQ(matmul::classify(2048, 2048, 132, true), matmul::ShapeClass::square);
  EXPECT_EQ(matmul::classify(4097, 4097, 132, false), matmul::ShapeClass::unaligned);
  EXPECT_EQ(matmul::classify(8192, 1024, 132, true), matmul::ShapeClass::tall);
  EXPECT_EQ(matmul::classify(1024, 8192, 132, true), matmul::ShapeClass::wide);
  EXPECT_EQ(matmul::classify(1024, 8191, 132, false), matmul::ShapeClass::unaligned);
  EXPECT_EQ(matmul::classify(1, 1, 132, false), matmul::ShapeClass::small);
}

TEST(Registry, FamiliesAreListedInOrder) {
  std::vector<std::string> seen;
  for (const auto& v : registered_variants())
    if (seen.empty() || seen.back() != v.family) seen.emplace_back(v.family);
  EXPECT_EQ(seen, (std::vector<std::string>{"matmul", "tensor-matmul", "reduction", "transpose", "banks"}));
}

TEST(Registry, MatmulHasTheTutorialsProgression) {
  for (const char* name :
       {"cublas", "naive", "smem_tile16", "smem_tile32", "dyn_tile16_const", "dyn_tile16_runtime",
        "conflict_tile16", "conflict_tile16_padded", "thread_tile_1d", "thread_tile_2d",
        "vectorized", "conflict_free", "warp_tile", "pipelined", "rasterized", "autotuned"})
    EXPECT_NO_THROW((void)matmul::find(name)) << name;
  EXPECT_TRUE(matmul::find("cublas").info.reference);
  EXPECT_EQ(matmul::find("smem_tile16").info.smem, SmemKind::static_alloc);
  EXPECT_EQ(matmul::find("dyn_tile16_runtime").info.smem, SmemKind::dynamic_alloc);
  EXPECT_EQ(matmul::find("naive").info.smem, SmemKind::none);
  EXPECT_THROW((void)matmul::find("nope"), UsageError);
}

TEST(Matmul, ValidateRejectsBadArgumentsBeforeAnyLaunch) {
  float dummy = 0.0F;
  const matmul::GemmArgs good{4, 5, 6, 1.0F, &dummy, 6, &dummy, 5, 0.0F, &dummy, 5};
  EXPECT_NO_THROW(matmul::validate(good));
  auto bad = [&](auto change) {
    matmul::GemmArgs g = good;
    change(g);
    return g;
  };
  const matmul::GemmVariant& naive = matmul::find("naive");
  for (const auto& g : {bad([](auto& g) { g.m = 0; }), bad([](auto& g) { g.n = -1; }),
                        bad([](auto& g) { g.k = 0; }), bad([](auto& g) { g.lda = 5; }),
                        bad([](auto& g) { g.ldb = 4; }), bad([](auto& g) { g.ldc = 4; }),
                        bad([](auto& g) { g.a = nullptr; })}) {
    EXPECT_THROW(matmul::validate(g), std::invalid_argument);
    // gemm() validates first, so these throw here without any device.
    EXPECT_THROW(matmul::gemm(naive, g, {}), std::invalid_argument);
  }
}

TEST(Transpose, ValidateRejectsBadArgumentsBeforeAnyLaunch) {
  float x = 0.0F;
  const transpose::Args<float> good{3, 4, &x, 4, &x, 3};
  EXPECT_NO_THROW(transpose::validate(good));
  auto bad = [&](auto change) {
    transpose::Args<float> a = good;
    change(a);
    return a;
  };
  const auto& tiled = transpose::find("tuned");
  for (const auto& a : {bad([](auto& a) { a.rows = 0; }), bad([](auto& a) { a.cols = -2; }),
                        bad([](auto& a) { a.ld_in = 3; }), bad([](auto& a) { a.ld_out = 2; }),
                        bad([](auto& a) { a.in = nullptr; })}) {
    EXPECT_THROW(transpose::validate(a), std::invalid_argument);
    EXPECT_THROW(transpose::run(tiled, a, {}), std::invalid_argument);
  }
}

TEST(Registry, EveryVariantHasAModelOrSaysWhyNot) {
  for (const BenchFamily* f : families())
    for (const auto& v : f->variants())
      EXPECT_EQ(v.model == nullptr, !v.why_no_model.empty()) << v.id() << ": a model, or a reason, not both";
}

TEST(Registry, VariantsDeclareTheElementTypesTheyRun) {
  const auto types_of = [](std::string_view id) {
    const VariantInfo v = find_registered(id);
    return std::vector<DType>(v.dtypes.begin(), v.dtypes.end());
  };
  EXPECT_EQ(types_of("matmul/autotuned"), std::vector<DType>{DType::f32});
  EXPECT_EQ(types_of("reduction/cpu_float"), std::vector<DType>{DType::f32});
  EXPECT_EQ(types_of("reduction/single_pass"), (std::vector<DType>{DType::f32, DType::f64}));
  EXPECT_EQ(types_of("transpose/tuned"), (std::vector<DType>{DType::f32, DType::f64}));
  // Every family's types are the union of its variants'.
  for (const BenchFamily* f : families()) {
    std::set<DType> from_variants;
    for (const auto& v : f->variants()) from_variants.insert(v.dtypes.begin(), v.dtypes.end());
    EXPECT_EQ(from_variants, std::set<DType>(f->spec().dtypes.begin(), f->spec().dtypes.end())) << f->name();
  }
}

// The layers: src/core is below the families, include/smemlab is the library alone.
TEST(Layout, CoreIncludesNoFamilyAndTheApiIncludesNoApplication) {
  namespace fs = std::filesystem;
  const fs::path root = SMEMLAB_SOURCE_DIR;
  const std::regex include_line(R"(#include\s+["<]([^">]+)[">])");
  const auto includes = [&](const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
      if (std::smatch m; std::regex_search(line, m, include_line)) out.push_back(m[1]);
    return out;
  };
  const std::regex family_header(R"((smemlab/(matmul|reduce|transpose|banks|access_model)\.hpp|^(matmul|reduce|transpose|banks)/))");
  const std::regex application(R"(^(bench|explain|cli)/)");
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(root / "src" / "core")) {
    ++files;
    for (const auto& inc : includes(e.path()))
      EXPECT_FALSE(std::regex_search(inc, family_header)) << e.path() << " includes " << inc;
  }
  for (const auto& e : fs::directory_iterator(root / "include" / "smemlab")) {
    ++files;
    for (const auto& inc : includes(e.path()))
      EXPECT_FALSE(std::regex_search(inc, application)) << e.path() << " includes " << inc;
  }
  EXPECT_GT(files, 10U);
}
