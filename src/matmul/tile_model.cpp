// The autotuned variant's choice: a model of a launch's time from its waves, tiles and K-steps
// per block, fed with speeds measured on the device (src/matmul/tuning_table.cpp).
//
// A configuration has n = blocks_per_sm slots on each SM (its TileShape), and an SM whose slots
// are all busy does `aligned` (or `unaligned`) multiply-adds per nanosecond. With b of them busy
// it does (b / n)^e of that (e = occupancy_exponent: a lone block hides less latency than a
// full SM, but more than its share), shared by its b blocks. Blocks run in waves of
// n x SMs; each wave lasts wave_ns (its first copies' latency and its last stores) plus its
// blocks' K-steps of BM x BN x BK at that speed. Each launch adds launch_ns (the last-wave
// split makes two: whole tiles, then the divided ones). Blocks of divided tiles run at
// divided_speed of the speed, and add their partial sums: each block of a tile writes BM x BN
// floats and the last one reads them all, at part_bytes_per_ns per SM; when the launch fits in
// one wave, every block reads a share, so the reading costs one slot's worth. Copying B to
// aligned rows first adds a launch that reads and writes its K x N floats at copy_bytes_per_ns,
// and the K-loop then runs at the `copied` speed. The speeds are measured, the constants fitted
// to a sweep of every choice (scripts/tune_table.py).
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "matmul/tuning.hpp"
#include "smemlab/error.hpp"

namespace smemlab::matmul {
namespace {

constexpr std::array kSplits{2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128};  // room between choices: ~1.5x
// Raster group of every choice: blocks resident together share A's and B's tiles in L2.
constexpr int kGroup = 8;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

const ConfigSpeed& speed_of(const DeviceTuning& device, std::string_view config) {
  for (const auto& c : device.configs)
    if (c.config == config) return c;
  throw UsageError("no measured speed for matmul tile configuration '" + std::string(config) + "'");
}

// Nanoseconds for `count` blocks of `steps` K-steps each, in waves.
double waves_ns(long long count, long long steps, const TileShape& t, double rate, const DeviceTuning& device) {
  const long long slots = static_cast<long long>(t.blocks_per_sm) * device.sms;
  const auto wave = [&](long long blocks) {
    const long long busy = std::min<long long>(t.blocks_per_sm, ceil_div(blocks, device.sms));
    const double sm_rate =
        rate * std::pow(static_cast<double>(busy) / t.blocks_per_sm, device.occupancy_exponent);
    return device.wave_ns + static_cast<double>(steps) * t.bm * t.bn * t.bk / (sm_rate / static_cast<double>(busy));
  };
  const long long rest = count % slots;
  return static_cast<double>(count / slots) * wave(slots) + (rest > 0 ? wave(rest) : 0.0);
}

}  // namespace

std::span<const int> split_k_choices() { return kSplits; }

TileEstimate estimate(const TileChoice& choice, int m, int n, int k, bool b_rows_aligned,
                      const DeviceTuning& device) {
  const TileShape t = tile_shape(choice.config);
  const ConfigSpeed& speed = speed_of(device, choice.config);
  const bool copies_b = choice.align_b && !b_rows_aligned;
  const double rate = b_rows_aligned ? speed.aligned : copies_b ? speed.copied : speed.unaligned;
  TileEstimate e;
  e.choice = choice;
  e.tiles = ceil_div(m, t.bm) * ceil_div(n, t.bn);
  const long long per_tile = ceil_div(k, t.bk);
  const long long slots = static_cast<long long>(t.blocks_per_sm) * device.sms;
  long long whole = e.tiles;  // as ConfigLaunch::schedule (gemm_launch.cuh) divides the tiles
  long long slices = 1;
  if (choice.split_last_wave) {
    whole = e.tiles - e.tiles % slots;
    slices = e.tiles > whole ? std::max<long long>(1, slots / (e.tiles - whole)) : 1;
  } else if (choice.slices > 1) {
    whole = 0;
    slices = choice.slices;
  }
  slices = std::min(slices, per_tile);
  if (slices == 1) whole = e.tiles;
  const long long divided = e.tiles - whole;
  e.blocks = whole + divided * slices;
  e.parts = static_cast<int>(slices);
  e.waves = static_cast<double>(e.blocks) / static_cast<double>(slots);
  e.spread_sum = whole == 0 && slices > 1 && e.blocks <= slots;
  const int launches = (whole > 0 ? 1 : 0) + (divided > 0 ? 1 : 0);
  e.ns = launches * device.launch_ns + waves_ns(whole, per_tile, t, rate, device);
  if (copies_b) e.ns += device.launch_ns + 2.0 * sizeof(float) * k * n / device.copy_bytes_per_ns;
  const double slots_read = e.spread_sum ? 1.0 : static_cast<double>(slices);
  if (divided > 0)
    e.ns += waves_ns(divided * slices, ceil_div(per_tile, slices), t, rate * device.divided_speed, device) +
            slots_read * 4.0 * t.bm * t.bn / device.part_bytes_per_ns;
  return e;
}

std::vector<TileEstimate> rank_tiles(int m, int n, int k, bool b_rows_aligned, const DeviceTuning& device) {
  std::vector<TileEstimate> all;
  const auto consider = [&](TileChoice c) {
    for (const bool align_b : {false, true}) {
      if (align_b && b_rows_aligned) break;
      c.align_b = align_b;
      const TileEstimate e = estimate(c, m, n, k, b_rows_aligned, device);
      const TileShape t = tile_shape(c.config);
      if (e.parts > 1 && ceil_div(ceil_div(k, t.bk), e.parts) < t.stages) return;  // divided: blocks fill the pipeline
      all.push_back(e);
    }
  };
  for (const auto& speed : device.configs) {
    const TileShape t = tile_shape(speed.config);
    const long long tiles = ceil_div(m, t.bm) * ceil_div(n, t.bn);
    const long long per_tile = ceil_div(k, t.bk);
    const long long slots = static_cast<long long>(t.blocks_per_sm) * device.sms;
    consider({speed.config, kGroup, 1, false});
    for (const int s : kSplits)
      if (s <= per_tile && tiles * s <= 2 * slots) consider({speed.config, kGroup, s, false});
    if (tiles % slots != 0 && tiles > slots) consider({speed.config, kGroup, 1, true});
  }
  if (all.empty()) throw std::logic_error("the matmul tuning of this device names no configuration");
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.ns < b.ns; });
  return all;
}

TileEstimate plan_tiles(int m, int n, int k, bool b_rows_aligned, const DeviceTuning& device) {
  return rank_tiles(m, n, k, b_rows_aligned, device).front();
}

const DeviceTuning& device_tuning(int cc_major, int cc_minor, int sms) {
  const auto all = device_tunings();
  for (const auto& d : all)
    if (d.cc_major == cc_major && d.cc_minor == cc_minor && d.sms == sms) return d;
  return all.front();
}

}  // namespace smemlab::matmul
