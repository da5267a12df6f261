// The autotuned SGEMM's model (src/matmul/tile_model.cpp): its accounting of tiles, blocks and
// shared tiles, the measured speeds it is fed, and its choices against the sweep that measured
// every choice it could make.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "matmul/tuning.hpp"
#include "smemlab/error.hpp"

using namespace smemlab;

namespace {

const matmul::DeviceTuning& h200() { return matmul::device_tuning(9, 0, 132); }

std::string candidate_name(const matmul::TileChoice& c) {
  const std::string_view suffix = c.align_b ? "/align-b" : "";
  return c.split_last_wave ? fmt::format("{}/g{}/lw{}", c.config, c.group, suffix)
                           : fmt::format("{}/g{}/k{}{}", c.config, c.group, c.slices, suffix);
}

nlohmann::json committed_fit() {
  std::ifstream in(std::string(SMEMLAB_DOCS_DATA_DIR) + "/matmul-tuning-h200.json");
  EXPECT_TRUE(in) << "missing matmul-tuning-h200.json";
  return in ? nlohmann::json::parse(in) : nlohmann::json::object();
}

}  // namespace

TEST(TileModel, EveryCompiledConfigurationHasMeasuredSpeedsAndNoOtherDoes) {
  for (const auto& device : matmul::device_tunings()) {
    std::set<std::string> measured;
    for (const auto& c : device.configs) {
      EXPECT_TRUE(measured.insert(std::string(c.config)).second) << "twice: " << c.config;
      EXPECT_NO_THROW((void)matmul::tile_shape(c.config)) << c.config;
      EXPECT_GT(c.aligned, 0.0) << c.config;
      EXPECT_GT(c.unaligned, 0.0) << c.config;
      EXPECT_GT(c.copied, 0.0) << c.config;
    }
    for (const auto config : matmul::tile_configs()) EXPECT_TRUE(measured.contains(std::string(config))) << config;
    EXPECT_GT(device.part_bytes_per_ns, 0.0);
    EXPECT_GE(device.launch_ns, 0.0);
    EXPECT_GE(device.wave_ns, 0.0);
    EXPECT_GT(device.divided_speed, 0.0);
    EXPECT_LE(device.divided_speed, 1.0);
    EXPECT_GT(device.copy_bytes_per_ns, 0.0);
  }
  EXPECT_THROW((void)matmul::tile_shape("unnamed"), UsageError);
}

TEST(TileModel, CountsTilesBlocksAndSharedTiles) {
  const std::string_view config = "64x64x8_s4_w32x32_t8x4";  // 4 blocks per SM
  const matmul::TileShape t = matmul::tile_shape(config);
  ASSERT_EQ(t.bm, 64);
  ASSERT_EQ(t.bk, 8);
  // One block per tile: 4 x 4 tiles.
  auto e = matmul::estimate({config, 0, 1, false}, 256, 256, 1024, true, h200());
  EXPECT_EQ(e.tiles, 16);
  EXPECT_EQ(e.blocks, 16);
  EXPECT_EQ(e.parts, 1);
  EXPECT_DOUBLE_EQ(e.waves, 16.0 / (4 * 132));
  // Split-K: 3 blocks per tile, each K / 3; no more blocks than K-steps in a tile.
  e = matmul::estimate({config, 0, 3, false}, 256, 256, 1024, true, h200());
  EXPECT_EQ(e.blocks, 48);
  EXPECT_EQ(e.parts, 3);
  e = matmul::estimate({config, 0, 64, false}, 256, 256, 80, true, h200());
  EXPECT_EQ(e.blocks, 16 * 10);
  EXPECT_EQ(e.parts, 10);
  // The last-wave split: 16 tiles, none in a full wave of 528 slots, each divided into 33.
  e = matmul::estimate({config, 0, 1, true}, 256, 256, 1024, true, h200());
  EXPECT_EQ(e.blocks, 528);
  EXPECT_EQ(e.parts, 33);
  EXPECT_DOUBLE_EQ(e.waves, 1.0);
  // 529 tiles: a full wave of whole tiles, and the last one divided into 512 (its K-steps).
  e = matmul::estimate({config, 0, 1, true}, 64 * 529, 64, 4096, true, h200());
  EXPECT_EQ(e.blocks, 528 + 512);
  EXPECT_EQ(e.parts, 512);
  // Never more blocks than K-steps in a tile.
  e = matmul::estimate({config, 0, 1, true}, 64, 64, 8, true, h200());
  EXPECT_EQ(e.blocks, 1);
  EXPECT_EQ(e.parts, 1);
}

TEST(TileModel, FillsTheGpuWhateverTheShape) {
  // A large square: no split of K into slices (there are tiles enough for many waves).
  auto e = matmul::plan_tiles(8192, 8192, 8192, true, h200());
  EXPECT_EQ(e.choice.slices, 1);
  EXPECT_GE(e.waves, 1.0);
  // A small C with a deep K: K divided until the blocks fill the slots.
  for (const auto& [m, n, k] : {std::array{256, 256, 65536}, std::array{128, 128, 131072}}) {
    e = matmul::plan_tiles(m, n, k, true, h200());
    EXPECT_TRUE(e.choice.split_last_wave || e.choice.slices > 1) << candidate_name(e.choice);
    EXPECT_GT(e.blocks, e.tiles) << candidate_name(e.choice);
  }
  // Small products: K is never divided so finely that a block cannot fill its pipeline.
  for (const auto& [m, n, k] :
       {std::array{256, 256, 256}, std::array{512, 512, 512}, std::array{64, 64, 40}, std::array{4097, 4097, 64}}) {
    e = matmul::plan_tiles(m, n, k, true, h200());
    const matmul::TileShape t = matmul::tile_shape(e.choice.config);
    const int steps = (k + t.bk - 1) / t.bk;
    if (e.parts > 1) EXPECT_GE((steps + e.parts - 1) / e.parts, t.stages) << candidate_name(e.choice);
  }
}

// B's aligned copy costs one launch and a pass over B, and buys the copied speed: taken where
// the K-loop is long enough to pay for it, never when B's rows are aligned already.
TEST(TileModel, CopiesBToAlignedRowsOnlyWhereItPays) {
  const matmul::DeviceTuning& d = h200();
  // The same device with the copied speeds in place of the unaligned ones.
  std::vector<matmul::ConfigSpeed> copied_speeds(d.configs.begin(), d.configs.end());
  for (auto& c : copied_speeds) c.unaligned = c.copied;
  matmul::DeviceTuning copied_device = d;
  copied_device.configs = copied_speeds;
  const std::string_view config = "64x128x8_s3_w32x64_t8x8_zz";
  const int m = 4095, n = 4095, k = 4095;
  const auto copied = matmul::estimate({config, 8, 1, false, true}, m, n, k, false, d);
  EXPECT_DOUBLE_EQ(copied.ns, matmul::estimate({config, 8, 1, false}, m, n, k, false, copied_device).ns +
                                  d.launch_ns + 2.0 * sizeof(float) * k * n / d.copy_bytes_per_ns);
  EXPECT_DOUBLE_EQ(matmul::estimate({config, 8, 1, false, true}, m, n, k, true, d).ns,
                   matmul::estimate({config, 8, 1, false}, m, n, k, true, d).ns);
  EXPECT_TRUE(matmul::plan_tiles(4095, 4095, 4095, false, d).choice.align_b);
  EXPECT_FALSE(matmul::plan_tiles(4096, 4096, 4096, true, d).choice.align_b);
  EXPECT_FALSE(matmul::plan_tiles(31, 33, 17, false, d).choice.align_b);
}

// The speeds and costs in src/matmul/tuning_table.cpp are the committed fit, not numbers typed
// in.
TEST(TileModel, TheTableIsTheCommittedFit) {
  const nlohmann::json fit = committed_fit();
  ASSERT_TRUE(fit.contains("configs"));
  const matmul::DeviceTuning& d = h200();
  EXPECT_EQ(fit.at("device").at("sms").get<int>(), d.sms);
  EXPECT_DOUBLE_EQ(fit.at("launch_ns").get<double>(), d.launch_ns);
  EXPECT_DOUBLE_EQ(fit.at("wave_ns").get<double>(), d.wave_ns);
  EXPECT_DOUBLE_EQ(fit.at("divided_speed").get<double>(), d.divided_speed);
  EXPECT_DOUBLE_EQ(fit.at("part_bytes_per_ns").get<double>(), d.part_bytes_per_ns);
  EXPECT_DOUBLE_EQ(fit.at("occupancy_exponent").get<double>(), d.occupancy_exponent);
  EXPECT_DOUBLE_EQ(fit.at("copy_bytes_per_ns").get<double>(), d.copy_bytes_per_ns);
  std::map<std::string, std::array<double, 3>> from_fit;
  for (const auto& c : fit.at("configs"))
    from_fit[c.at("config").get<std::string>()] = {c.at("aligned").get<double>(), c.at("unaligned").get<double>(),
                                                   c.at("copied").get<double>()};
  std::map<std::string, std::array<double, 3>> from_table;
  for (const auto& c : d.configs) from_table[std::string(c.config)] = {c.aligned, c.unaligned, c.copied};
  EXPECT_EQ(from_table, from_fit);
  EXPECT_TRUE(fit.at("unverified").empty());
}

// At every swept shape the model's choice was measured (the sweep times every choice it can
// make) and is close to the fastest one measured there: in the committed sweep, 0.99 of the
// fastest on geometric mean, and 0.94 at the worst shape (256^3, where it takes 32x32 tiles
// for 32x128).
TEST(TileModel, ChoosesNearTheFastestMeasuredChoiceAtEverySweptShape) {
  const nlohmann::json fit = committed_fit();
  ASSERT_TRUE(fit.contains("shapes"));
  double log_sum = 0.0;
  int shapes = 0;
  for (const auto& shape : fit.at("shapes")) {
    const auto size = shape.at("size").get<std::string>();
    const auto dims = shape.at("mnk").get<std::array<int, 3>>();
    const auto& times = shape.at("ms");
    const auto e = matmul::plan_tiles(dims[0], dims[1], dims[2], dims[1] % 4 == 0, h200());
    const std::string chosen = candidate_name(e.choice);
    ASSERT_TRUE(times.contains(chosen)) << size << ": the sweep did not time " << chosen;
    double best = INFINITY;
    std::string fastest;
    for (const auto& [name, ms] : times.items())
      if (ms.get<double>() < best) {
        best = ms.get<double>();
        fastest = name;
      }
    const double ratio = best / times.at(chosen).get<double>();
    EXPECT_GE(ratio, 0.90) << size << ": chose " << chosen << ", fastest " << fastest;
    log_sum += std::log(ratio);
    ++shapes;
  }
  ASSERT_GT(shapes, 0);
  EXPECT_GE(std::exp(log_sum / shapes), 0.97) << "geometric mean of fastest / chosen";
}
