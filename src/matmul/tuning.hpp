#pragma once
// The autotuned variant's parts (src/matmul/12_autotuned.cu), for the matmul-tiles sweep, the
// tests and `explain`; not part of the installed API. The variant picks, per shape, one of
// several compiled tile configurations and a way to divide the work among blocks, by a model
// of the launch's time (src/matmul/tile_model.cpp) fed with speeds measured on the device
// (scripts/tune-matmul.sh).
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "smemlab/launch.hpp"
#include "smemlab/matmul.hpp"

namespace smemlab::matmul {

struct TileChoice {
  std::string_view config;  // a name from tile_configs()
  int group = 0;            // raster group in block-rows; 0: row-major block order
  int slices = 1;           // split-K: blocks per tile of C, each an equal share of K; 1: none
  // Instead: whole tiles in full waves of resident blocks, and the tiles of the last, partial
  // wave divided along K so that their blocks fill a wave (slices is then ignored).
  bool split_last_wave = false;
  // When B's rows are not 16-byte aligned: copy B first into the workspace with aligned rows, so
  // that the K-loop copies it 16 bytes at a time instead of 4 (ignored when they are aligned).
  bool align_b = false;
};
[[nodiscard]] std::span<const std::string_view> tile_configs();
// A configuration's block tile (BM x BN, K-steps of BK), threads, the blocks per SM its
// registers are bounded for (__launch_bounds__), which is what the device keeps resident, and
// its pipeline's stages (K-steps in flight); UsageError if unknown.
struct TileShape {
  int bm, bn, bk, threads, blocks_per_sm, stages;
};
[[nodiscard]] TileShape tile_shape(std::string_view config);

// What the model knows of a device: per configuration, multiply-adds per nanosecond per SM
// when every slot is busy (B's rows aligned for 16-byte copies; or not, copied 4 bytes at a
// time or first copied to aligned rows), and the costs outside the K-loop.
struct ConfigSpeed {
  std::string_view config;
  double aligned;  // multiply-adds per ns per SM
  double unaligned;
  double copied;  // B's rows not aligned, B copied to aligned rows first (TileChoice::align_b)
};
struct DeviceTuning {
  int cc_major, cc_minor, sms;
  double launch_ns;           // once per launch
  double wave_ns;             // once per wave of blocks: the first copies' latency, the last stores
  double part_bytes_per_ns;   // per SM, writing and reading partial sums (L2)
  double occupancy_exponent;  // an SM with b of its n slots busy runs at (b / n)^this of its speed
  double divided_speed;       // blocks of divided tiles run at this fraction of the speed
  double copy_bytes_per_ns;   // the whole device, copying B to aligned rows (bytes read and written)
  std::span<const ConfigSpeed> configs;
};
// The measured devices; a device not listed takes the first's numbers.
[[nodiscard]] std::span<const DeviceTuning> device_tunings();
[[nodiscard]] const DeviceTuning& device_tuning(int cc_major, int cc_minor, int sms);
// The current device's entry, with its own count of SMs (looked up once per device).
[[nodiscard]] DeviceTuning current_tuning();

// The model's account of one choice for an m x n x k product.
struct TileEstimate {
  TileChoice choice;
  long long tiles = 0;   // of C
  long long blocks = 0;  // launched
  int parts = 1;         // blocks of a divided tile (1: no partial sums)
  bool spread_sum = false;  // every block sums a share of its tile (split-K in one wave)
  double waves = 0;      // blocks / resident slots
  double ns = 0;         // predicted time
};
[[nodiscard]] TileEstimate estimate(const TileChoice& choice, int m, int n, int k, bool b_rows_aligned,
                                    const DeviceTuning& device);
// The split-K slices the model considers (besides 1, no split).
[[nodiscard]] std::span<const int> split_k_choices();
// The fastest choice by the model over every configuration, one block per tile, split-K of
// split_k_choices() slices (up to two waves of blocks) and the last-wave split, each with and
// without the aligned copy of B when B's rows are not aligned; a divided tile's blocks keep at
// least the configuration's stages in K-steps (with fewer, the copies of one step are never
// overlapped with the FMAs of another).
[[nodiscard]] TileEstimate plan_tiles(int m, int n, int k, bool b_rows_aligned, const DeviceTuning& device);
// Every choice plan_tiles weighs, fastest first (the first is its choice).
[[nodiscard]] std::vector<TileEstimate> rank_tiles(int m, int n, int k, bool b_rows_aligned,
                                                   const DeviceTuning& device);
// The same for these arguments on the current device.
[[nodiscard]] TileChoice choose_tiles(const GemmArgs& args);

// Workspace a launch needs (0 for one block per tile), on the current device.
[[nodiscard]] std::size_t workspace_bytes(const TileChoice& choice, const GemmArgs& args);
// The same for the autotuned variant's choice.
[[nodiscard]] std::size_t workspace_bytes(const GemmArgs& args);
// Validates the arguments and the choice (UsageError for an unknown configuration), then
// launches.
void gemm_tiles(const TileChoice& choice, const GemmArgs& args, const LaunchContext& ctx);

}  // namespace smemlab::matmul
