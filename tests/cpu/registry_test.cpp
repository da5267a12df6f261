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
#include "core/gemm_operands.hpp"
#include "matmul/tuning.hpp"
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

TEST(Registry, TheTileSweepOffersEveryChoiceOfTheAutotunedVariant) {
  const BenchFamily& tiles = find_family("matmul-tiles");
  EXPECT_FALSE(tiles.spec().in_default_run);
  const auto variants = tiles.variants();
  EXPECT_TRUE(variants.front().reference);
  const std::size_t per_group = 2 + matmul::split_k_choices().size();  // k1, each split, lw
  for (const auto config : matmul::tile_configs()) {
    const std::string prefix = std::string(config) + "/";
    const auto named = [&](const VariantInfo& v) { return v.name.starts_with(prefix); };
    // Raster groups 0 and 8, and group 8 again with B copied to aligned rows.
    EXPECT_EQ(static_cast<std::size_t>(std::count_if(variants.begin(), variants.end(), named)), 3 * per_group)
        << config;
    const auto copies_b = [&](const VariantInfo& v) { return named(v) && v.name.ends_with("/align-b"); };
    EXPECT_EQ(static_cast<std::size_t>(std::count_if(variants.begin(), variants.end(), copies_b)), per_group)
        << config;
  }
}

// A variant's step is the NN of its file; a family's table is in teaching order, so its steps
// never go back, and the reference is step 00. The bank microbenchmarks are built in one file.
TEST(Registry, StepsAreTheFilesNumbersInTableOrder) {
  for (const BenchFamily* f : families()) {
    if (!f->spec().in_default_run) continue;
    int last = -1;
    for (const auto& v : f->variants()) {
      if (f->name() == "banks") {
        EXPECT_FALSE(v.step().has_value()) << v.id();
        continue;
      }
      ASSERT_TRUE(v.step().has_value()) << v.id() << " is built in " << v.defined_at.file_name();
      EXPECT_GE(*v.step(), last) << v.id();
      EXPECT_EQ(*v.step() == 0, v.reference) << v.id();
      last = *v.step();
    }
  }
  EXPECT_EQ(matmul::find("thread_tile_2d").info.step(), 6);
  EXPECT_EQ(matmul::find("smem_tile32").info.step(), 2);         // a second variant of step 02
  EXPECT_FALSE(VariantInfo{.name = "here"}.step().has_value());  // built in this file
}

TEST(Registry, FamiliesAreListedInOrder) {
  std::vector<std::string> seen;
  for (const auto& v : registered_variants())
    if (seen.empty() || seen.back() != v.family) seen.emplace_back(v.family);
  EXPECT_EQ(seen, (std::vector<std::string>{"matmul", "tensor-matmul", "reduction", "scan", "histogram", "transpose", "attention", "banks"}));
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
                        bad([](auto& g) { g.a = nullptr; }),
                        // Stored transposed, A is k x m (lda >= m) and B n x k (ldb >= k).
                        bad([](auto& g) {
                          g.transpose_a = true;
                          g.lda = 3;
                        }),
                        bad([](auto& g) {
                          g.transpose_b = true;
                          g.ldb = 5;
                        })}) {
    EXPECT_THROW(matmul::validate(g), std::invalid_argument);
    // gemm() validates first, so these throw here without any device.
    EXPECT_THROW(matmul::gemm(naive, g, {}), std::invalid_argument);
  }
  matmul::GemmArgs transposed = good;
  transposed.transpose_a = transposed.transpose_b = true;
  transposed.lda = 4;
  transposed.ldb = 6;
  EXPECT_NO_THROW(matmul::validate(transposed));
}

// One row of A stored transposed is read as is only where its elements are consecutive (lda 1);
// stored as is, its lda becomes K. Both only where the row is whole 16-byte chunks: the aligned
// kernels copy whole chunks, and a row that ends inside one would be read past its end.
TEST(Matmul, ARowIsReadAsARow) {
  float x = 0.0F;
  const matmul::GemmArgs row{.m = 1, .n = 5, .k = 8, .a = &x, .lda = 1, .b = &x, .ldb = 5, .c = &x, .ldc = 5,
                             .transpose_a = true};
  const matmul::GemmArgs as_is = smemlab::detail::with_row_vector_a(row, sizeof(float));
  EXPECT_FALSE(as_is.transpose_a);
  EXPECT_EQ(as_is.lda, 8);  // K
  matmul::GemmArgs strided = row;
  strided.lda = 2;
  EXPECT_TRUE(smemlab::detail::with_row_vector_a(strided, sizeof(float)).transpose_a);
  matmul::GemmArgs two_rows = row;
  two_rows.m = 2;
  two_rows.lda = 2;
  EXPECT_TRUE(smemlab::detail::with_row_vector_a(two_rows, sizeof(float)).transpose_a);
  matmul::GemmArgs part_chunk = row;
  part_chunk.k = 6;  // 24 bytes: stored transposed it stays so, to be copied
  EXPECT_TRUE(smemlab::detail::with_row_vector_a(part_chunk, sizeof(float)).transpose_a);
  // A row stored as is: its lda, never stepped by, becomes K.
  matmul::GemmArgs row_major = row;
  row_major.transpose_a = false;
  row_major.lda = 9;
  EXPECT_EQ(smemlab::detail::with_row_vector_a(row_major, sizeof(float)).lda, 8);
  row_major.m = 2;
  EXPECT_EQ(smemlab::detail::with_row_vector_a(row_major, sizeof(float)).lda, 9);
  row_major.m = 1;
  row_major.k = 6;
  EXPECT_EQ(smemlab::detail::with_row_vector_a(row_major, sizeof(float)).lda, 9);
}

// B of one column is the row of B's transpose where its elements are consecutive and whole
// 16-byte chunks.
TEST(Matmul, BColumnIsARowOfBsTransposeWhereConsecutive) {
  float x = 0.0F;
  const matmul::GemmArgs column{.m = 5, .n = 1, .k = 8, .a = &x, .lda = 8, .b = &x, .ldb = 1, .c = &x, .ldc = 1};
  const matmul::GemmArgs row = smemlab::detail::with_column_vector_b(column, sizeof(float));
  EXPECT_TRUE(row.transpose_b);
  EXPECT_EQ(row.ldb, 8);
  matmul::GemmArgs strided = column;
  strided.ldb = 3;  // its elements 3 apart: as it is
  EXPECT_FALSE(smemlab::detail::with_column_vector_b(strided, sizeof(float)).transpose_b);
  matmul::GemmArgs stored_transposed = column;
  stored_transposed.transpose_b = true;
  stored_transposed.ldb = 9;
  EXPECT_EQ(smemlab::detail::with_column_vector_b(stored_transposed, sizeof(float)).ldb, 8);
  matmul::GemmArgs two_columns = column;
  two_columns.n = 2;
  two_columns.ldb = 2;
  EXPECT_FALSE(smemlab::detail::with_column_vector_b(two_columns, sizeof(float)).transpose_b);
  matmul::GemmArgs part_chunk = column;
  part_chunk.k = 6;
  EXPECT_FALSE(smemlab::detail::with_column_vector_b(part_chunk, sizeof(float)).transpose_b);
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

// The layers: src/core is below the families, and include/smemlab, the installed API, includes
// no header of src/ (the application's, or a family's private ones such as matmul/tuning.hpp).
TEST(Layout, CoreIncludesNoFamilyAndTheApiIncludesNoPrivateHeader) {
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
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(root / "src" / "core")) {
    ++files;
    for (const auto& inc : includes(e.path()))
      EXPECT_FALSE(std::regex_search(inc, family_header)) << e.path() << " includes " << inc;
  }
  for (const auto& e : fs::directory_iterator(root / "include" / "smemlab")) {
    ++files;
    for (const auto& inc : includes(e.path()))
      EXPECT_FALSE(fs::exists(root / "src" / inc)) << e.path() << " includes " << inc;
  }
  EXPECT_GT(files, 10U);
}
