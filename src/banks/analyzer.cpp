// The bank model: 32 banks of 4 bytes. A warp's access of width W bytes is served in phases of
// 128 / W lanes (all 32 lanes for W <= 4); in a phase each bank delivers one 4-byte word per
// wavefront, lanes asking for the same word share it (broadcast), so a phase needs as many
// wavefronts as its busiest bank has distinct words. Wide accesses pair their phases (the two
// half-warps of an 8-byte access; quarters 0-1 and 2-3 of a 16-byte one), as measured on an
// H200 (tests/data/bank_conflicts_h200.csv):
// - 8 bytes: the halves share one wavefront when together they ask for at most 128 distinct
//   bytes and the merged request is conflict-free (one 8-byte word broadcast: 1 wavefront;
//   lanes sharing words pairwise, tx/2: 1; a conflicting half with a small clean one: not
//   merged, 4 + 1);
// - 16 bytes: a quarter pair asking for at most 128 distinct bytes is served together, at the
//   cost of its merged request, conflicts included (one 16-byte word broadcast: 2 wavefronts,
//   one per half-warp), provided no 4 consecutive lanes ask for more than two distinct words:
//   tx%4 (each quarter lanes 0-3 and 4-7 both reading words 0-3) takes 4 wavefronts where
//   (tx/2)%4 (the same words, lanes 0-1, 2-3, ... sharing) takes 2. That proviso is the
//   simplest rule that fits the measured patterns, not a documented hardware fact.
// Tensor-core era instructions, measured the same way:
// - ldmatrix / stmatrix (.x1, .x2, .x4, with or without .trans): lanes 0..8N-1 give the rows of
//   N 8x8 matrices, 16 bytes each; each matrix is a phase of its own, never merged with another
//   (the same 8 rows for both matrices of an .x2 still take 2 wavefronts);
// - cp.async.ca (4, 8 or 16 bytes) writes shared memory like a store of its width;
// - cp.async.cg (16 bytes, the L1-bypassing copy) does not: its writes go through the path that
//   fills shared memory in 32-byte sectors. Lanes writing the same 16 bytes count once; then each
//   quarter-warp is served on its own, in one wavefront per 128-byte line for the sectors it writes
//   whole and one per sector it writes in part. So a tile padded by 16 bytes a row, whose rows
//   straddle sectors, takes 10 wavefronts for 4 rows where an XOR-swizzled one takes 4, and
//   16-byte pieces 32 bytes apart take one wavefront each. This, too, is the simplest rule that
//   fits the measured rows.
// Atomic increments (atomicAdd(p, 1), its result unused), measured on an H100 with a
// histogram's (the sum of wavefronts over 524,288 warps, Nsight Compute's count from the
// addresses; other atomics are not modelled):
// - atom (ATOMS.POPC.INC on the block's own shared memory) is served as a load: lanes on one
//   word together. 32 lanes on one word take 1 wavefront; uniformly random words of 256
//   (8 a bank) 3.15 a warp;
// - atom.cluster (ATOM on a cluster's distributed shared memory) serves each lane apart: 32
//   lanes on one word take 32 wavefronts; random words of 256 3.53 a warp, the mean of the most
//   lanes that fall in one bank.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "banks/broadcasts.hpp"
#include "smemlab/banks.hpp"

namespace smemlab::banks {

long long Analysis::wavefronts() const {
  long long total = 0;
  for (const auto& w : warps) total += w.wavefronts;
  return total;
}

long long Analysis::ideal() const {
  long long total = 0;
  for (const auto& w : warps) total += w.ideal;
  return total;
}

std::string Instruction::name() const {
  switch (op) {
    case Op::load: return "ld";
    case Op::store: return "st";
    case Op::cp_async_ca: return "cp.async.ca";
    case Op::cp_async_cg: return "cp.async.cg";
    case Op::atom: return "atom";
    case Op::atom_cluster: return "atom.cluster";
    case Op::ldmatrix:
    case Op::stmatrix:
      return fmt::format("{}.x{}{}", op == Op::ldmatrix ? "ldmatrix" : "stmatrix", matrices, trans ? ".trans" : "");
  }
  return "";
}

Instruction parse_instruction(std::string_view text) {
  if (text == "ld") return {Op::load};
  if (text == "st") return {Op::store};
  if (text == "cp.async.ca") return {Op::cp_async_ca};
  if (text == "cp.async.cg") return {Op::cp_async_cg};
  if (text == "atom") return {Op::atom};
  if (text == "atom.cluster") return {Op::atom_cluster};
  for (const Op op : {Op::ldmatrix, Op::stmatrix})
    for (const int matrices : {1, 2, 4})
      for (const bool trans : {false, true})
        if (const Instruction in{op, matrices, trans}; in.name() == text) return in;
  throw UsageError(fmt::format("--instruction {}: one of ld, st, cp.async.ca, cp.async.cg, atom, atom.cluster, "
                               "ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans]",
                               text));
}

void validate(const Access& a) {
  const Instruction& in = a.instruction;
  if (in.matrix() && a.width != 16)
    throw UsageError(fmt::format("--width {}: {} moves 16-byte rows, one a lane", a.width, in.name()));
  if (in.op == Op::cp_async_ca && a.width != 4 && a.width != 8 && a.width != 16)
    throw UsageError(fmt::format("--width {}: cp.async.ca copies 4, 8 or 16 bytes", a.width));
  if (in.op == Op::cp_async_cg && a.width != 16)
    throw UsageError(fmt::format("--width {}: cp.async.cg copies 16 bytes", a.width));
  if (in.atomic() && a.width != 4)
    throw UsageError(fmt::format("--width {}: {} is modelled for 4-byte words (the width measured)", a.width,
                                 in.name()));
  if (a.width != 1 && a.width != 2 && a.width != 4 && a.width != 8 && a.width != 16)
    throw UsageError(fmt::format("--width {}: must be 1, 2, 4, 8 or 16 bytes", a.width));
  if (a.block.x < 1 || a.block.y < 1 || a.block.z < 1 || a.block.threads() > 1024)
    throw UsageError(fmt::format("--block {},{},{}: each dimension at least 1, at most 1024 threads",
                                 a.block.x, a.block.y, a.block.z));
  if (a.swizzle != 0 && a.swizzle != 32 && a.swizzle != 64 && a.swizzle != 128)
    throw UsageError(fmt::format("--swizzle {}: TMA swizzles 32, 64 or 128 bytes (0: none)", a.swizzle));
  if (in.matrix() && a.block.threads() % kWarp != 0)
    throw UsageError(fmt::format("--block {},{},{}: {} is executed by whole warps, and {} threads are not",
                                 a.block.x, a.block.y, a.block.z, in.name(), a.block.threads()));
}

namespace {

// Byte address of the access of thread `linear` (x fastest). What its arithmetic did that C
// leaves undefined goes to `warnings` (when given), once a kind, naming the thread.
std::int64_t address_of(const Access& a, int linear, int warp, int lane, std::vector<ArithmeticWarning>* warnings) {
  const int tx = linear % a.block.x;
  const int ty = (linear / a.block.x) % a.block.y;
  const int tz = linear / (a.block.x * a.block.y);
  const std::size_t known = warnings != nullptr ? warnings->size() : 0;
  const std::int64_t value = a.expression.eval(tx, ty, tz, warnings, a.draw);
  if (warnings != nullptr)
    for (std::size_t i = known; i < warnings->size(); ++i)
      (*warnings)[i].message += fmt::format(" (first at tx={}, ty={}, tz={})", tx, ty, tz);
  std::int64_t address = 0;
  const bool overflowed = a.bytes ? __builtin_add_overflow(a.base, value, &address)
                                  : __builtin_mul_overflow(value, a.width, &address) ||
                                        __builtin_add_overflow(address, a.base, &address);
  const auto fail = [&](std::string why) {
    // What this thread's arithmetic did that C leaves undefined may be why.
    if (warnings != nullptr && warnings->size() > known) why += "; warning: " + (*warnings)[known].message;
    return UsageError(fmt::format("'{}' gives {} for lane {} of warp {} (tx={}, ty={}, tz={}): {}",
                                  a.expression.text(), overflowed ? "no byte address" : fmt::format("byte address {}", address),
                                  lane, warp, tx, ty, tz, why));
  };
  if (overflowed) throw fail("it overflows 64 bits");
  if (address < 0) throw fail("negative");
  if (address % a.width != 0) throw fail(fmt::format("not a multiple of the width {}", a.width));
  if (address + a.width > kMaxSharedBytes)
    throw fail(fmt::format("beyond the {} KiB of shared memory a block can have", kMaxSharedBytes / 1024));
  // The swizzle moves whole 16-byte chunks within 8 x 128 bytes: alignment and bounds hold.
  return swizzled(address, a.swizzle);
}

// Byte addresses of the first `lanes` lanes of `warp`.
std::vector<std::int64_t> warp_addresses(const Access& a, int warp, int lanes,
                                         std::vector<ArithmeticWarning>* warnings = nullptr) {
  std::vector<std::int64_t> address(static_cast<std::size_t>(lanes));
  for (int lane = 0; lane < lanes; ++lane)
    address[static_cast<std::size_t>(lane)] = address_of(a, warp * kWarp + lane, warp, lane, warnings);
  return address;
}

}  // namespace

namespace {

// One service unit: the lanes it covers, the distinct words each bank is asked for (each lane's
// word apart where lanes on one word are not served together).
struct Service {
  std::vector<int> lanes;
  std::map<int, std::vector<std::pair<std::int64_t, std::vector<int>>>> banks;
  std::int64_t distinct_bytes = 0;
  int wavefronts = 1;
};

Service serve(const std::vector<int>& lanes, const std::vector<std::int64_t>& address, int width,
              bool shared_words = true) {
  Service s{lanes, {}, 0, 1};
  const int words = std::max(1, width / kBankBytes);
  for (const int lane : lanes) {
    const std::int64_t first_word = address[static_cast<std::size_t>(lane)] / kBankBytes;
    for (int i = 0; i < words; ++i) {
      const std::int64_t word = first_word + i;
      auto& list = s.banks[static_cast<int>(word % kBanks)];
      auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == word; });
      if (it == list.end() || !shared_words) {
        list.push_back({word, {lane}});
      } else if (it->second.back() != lane) {
        it->second.push_back(lane);
      }
    }
  }
  std::set<std::int64_t> distinct;
  for (const int lane : lanes) distinct.insert(address[static_cast<std::size_t>(lane)]);
  s.distinct_bytes = static_cast<std::int64_t>(distinct.size()) * width;
  for (const auto& [bank, list] : s.banks) s.wavefronts = std::max(s.wavefronts, static_cast<int>(list.size()));
  return s;
}

// Whether every group of 4 consecutive lanes asks for at most two distinct words (16-byte
// accesses; see the rules at the top).
bool narrow_lane_groups(const std::vector<int>& lanes, const std::vector<std::int64_t>& address) {
  for (std::size_t first = 0; first < lanes.size(); first += 4) {
    std::set<std::int64_t> words;
    for (std::size_t i = first; i < std::min(first + 4, lanes.size()); ++i)
      words.insert(address[static_cast<std::size_t>(lanes[i])]);
    if (words.size() > 2) return false;
  }
  return true;
}

void record(const Service& s, Split split, WarpResult& w) {
  const int ideal = static_cast<int>(std::max<std::int64_t>(1, (s.distinct_bytes + 127) / 128));
  Phase phase{s.lanes.front(), static_cast<int>(s.lanes.size()), s.wavefronts, ideal, split, {}};
  phase.grid.assign(static_cast<std::size_t>(s.wavefronts), std::vector<int>(kBanks, -1));
  for (const auto& [bank, list] : s.banks) {
    for (std::size_t k = 0; k < list.size(); ++k) phase.grid[k][static_cast<std::size_t>(bank)] = list[k].second.front();
    if (list.size() > 1) {
      Collision c{bank, static_cast<int>(w.phases.size()), {}, {}};
      for (const auto& [word, lanes] : list) {
        // Lanes served apart on one word (atom.cluster) list it once.
        if (std::find(c.words.begin(), c.words.end(), word) == c.words.end()) c.words.push_back(word);
        c.lanes.insert(c.lanes.end(), lanes.begin(), lanes.end());
      }
      w.collisions.push_back(std::move(c));
    }
  }
  w.wavefronts += s.wavefronts;
  w.ways = std::max(w.ways, s.wavefronts);
  w.phases.push_back(std::move(phase));
}

// cp.async.cg (see the rules at the top): one wavefront per 128-byte line holding sectors the
// quarter writes whole, one per sector it writes in part. `lanes` have distinct addresses.
void record_bypass(const std::vector<int>& lanes, const std::vector<std::int64_t>& address, Split split,
                   WarpResult& w) {
  constexpr std::int64_t kSector = 32;
  constexpr std::int64_t kLine = 128;
  std::map<std::int64_t, std::vector<int>> sectors;  // sector -> its lanes
  for (const int lane : lanes) sectors[address[static_cast<std::size_t>(lane)] / kSector].push_back(lane);
  std::map<std::int64_t, std::vector<int>> whole;  // line -> lanes writing whole sectors of it
  std::vector<std::vector<int>> wavefronts;
  int partial = 0;
  for (const auto& [sector, writers] : sectors) {
    if (writers.size() * 16 == kSector) {
      auto& line = whole[sector * kSector / kLine];
      line.insert(line.end(), writers.begin(), writers.end());
    } else {
      wavefronts.push_back(writers);
      ++partial;
    }
  }
  for (const auto& [line, writers] : whole) wavefronts.push_back(writers);
  const auto distinct_bytes = static_cast<std::int64_t>(lanes.size()) * 16;
  const int ideal = static_cast<int>((distinct_bytes + kLine - 1) / kLine);
  Phase phase{lanes.front(), static_cast<int>(lanes.size()), static_cast<int>(wavefronts.size()), ideal, split, {}};
  phase.partial_sectors = partial;
  for (const auto& writers : wavefronts) {
    std::vector<int> banks(kBanks, -1);
    for (const int lane : writers)
      for (int i = 0; i < 4; ++i)
        banks[static_cast<std::size_t>((address[static_cast<std::size_t>(lane)] / kBankBytes + i) % kBanks)] = lane;
    phase.grid.push_back(std::move(banks));
  }
  w.wavefronts += phase.wavefronts;
  w.phases.push_back(std::move(phase));
}

}  // namespace

Analysis analyze(const Access& a) {
  validate(a);
  const int threads = a.block.threads();
  const bool matrix = a.instruction.matrix();
  // A matrix instruction reads or writes one 8x8 matrix (8 rows of 16 bytes) per phase.
  const int phase_lanes = matrix ? 8 : a.width <= kBankBytes ? kWarp : kWarp * kBankBytes / a.width;
  Analysis result;
  std::vector<ArithmeticWarning> warnings;
  for (int warp = 0; warp * kWarp < threads; ++warp) {
    const int lanes = std::min({kWarp, threads - warp * kWarp, a.instruction.address_lanes()});
    WarpResult w{warp, lanes, 0, 0, 1, {}, {}};
    const std::vector<std::int64_t> address = warp_addresses(a, warp, w.active_lanes, &warnings);
    const std::set<std::int64_t> distinct(address.begin(), address.end());
    w.ideal = std::max(1, static_cast<int>((static_cast<int>(distinct.size()) * a.width + 127) / 128));
    std::vector<std::vector<int>> phases;
    for (int first = 0; first < w.active_lanes; first += phase_lanes) {
      std::vector<int> lanes;
      for (int lane = first; lane < std::min(first + phase_lanes, w.active_lanes); ++lane) lanes.push_back(lane);
      phases.push_back(std::move(lanes));
    }
    if (a.instruction.op == Op::cp_async_cg) {
      // Lanes writing the same 16 bytes: one of them writes.
      std::set<std::int64_t> seen;
      for (std::size_t p = 0; p < phases.size(); ++p) {
        std::vector<int> writers;
        for (const int lane : phases[p])
          if (seen.insert(address[static_cast<std::size_t>(lane)]).second) writers.push_back(lane);
        if (!writers.empty()) record_bypass(writers, address, w.phases.empty() ? Split::none : Split::quarters, w);
      }
      result.warps.push_back(std::move(w));
      continue;
    }
    // Each matrix is a phase of its own; atom.cluster (4-byte words: one phase) serves its lanes
    // apart, lanes on one word included.
    if (matrix || a.instruction.op == Op::atom_cluster) {
      const bool shared_words = a.instruction.op != Op::atom_cluster;
      for (std::size_t p = 0; p < phases.size(); ++p)
        record(serve(phases[p], address, a.width, shared_words), p == 0 ? Split::none : Split::matrices, w);
      result.warps.push_back(std::move(w));
      continue;
    }
    // Phases 2k and 2k+1 of a wide access may share wavefronts; narrow accesses have one phase.
    for (std::size_t p = 0; p < phases.size(); p += 2) {
      const Service first = serve(phases[p], address, a.width);
      const Split first_split = p == 0 ? Split::none : Split::half_warps;  // 16 bytes: quarters 2-3
      if (p + 1 == phases.size()) {
        record(first, first_split, w);
        break;
      }
      const Service second = serve(phases[p + 1], address, a.width);
      std::vector<int> both = phases[p];
      both.insert(both.end(), phases[p + 1].begin(), phases[p + 1].end());
      const Service merged = serve(both, address, a.width);
      const bool fits = first.distinct_bytes + second.distinct_bytes <= 128;
      const bool merge = a.width == 16 ? fits && narrow_lane_groups(both, address)
                                       : fits && merged.wavefronts == 1;
      if (merge) {
        record(merged, first_split, w);
      } else {
        record(first, first_split, w);
        record(second, !fits ? Split::bytes : a.width == 16 ? Split::lane_groups : Split::merge_conflict, w);
      }
    }
    result.warps.push_back(std::move(w));
  }
  for (const auto& w : warnings) result.warnings.push_back(w.message);
  return result;
}

Expected expected(const Access& a) {
  if (!a.expression.random()) {
    const Analysis analysis = analyze(a);
    return {static_cast<double>(analysis.wavefronts()), static_cast<double>(analysis.ideal())};
  }
  Expected sum;
  Access drawn = a;
  for (int d = 0; d < kDraws; ++d) {
    drawn.draw = a.draw + static_cast<std::uint64_t>(d);
    const Analysis analysis = analyze(drawn);
    sum.wavefronts += static_cast<double>(analysis.wavefronts());
    sum.ideal += static_cast<double>(analysis.ideal());
  }
  return {sum.wavefronts / kDraws, sum.ideal / kDraws};
}

namespace detail {

std::vector<Broadcast> broadcasts(const Access& a, const WarpResult& w) {
  std::vector<Broadcast> out;
  if (a.instruction.op == Op::cp_async_cg || a.instruction.op == Op::atom_cluster) return out;
  const std::vector<std::int64_t> address = warp_addresses(a, w.warp, w.active_lanes);
  const int words = std::max(1, a.width / kBankBytes);
  for (std::size_t p = 0; p < w.phases.size(); ++p) {
    const Phase& phase = w.phases[p];
    std::map<std::int64_t, std::vector<int>> readers;  // word -> the lanes asking for it
    for (int lane = phase.first_lane; lane < phase.first_lane + phase.lanes; ++lane) {
      const std::int64_t first_word = address[static_cast<std::size_t>(lane)] / kBankBytes;
      for (int i = 0; i < words; ++i) readers[first_word + i].push_back(lane);
    }
    for (const auto& [word, lanes] : readers) {
      if (lanes.size() < 2) continue;
      // The grid shows a word's first lane in the wavefront that serves it; a lane asks a
      // bank for one word at most, so that lane finds the row.
      const auto bank = static_cast<std::size_t>(word % kBanks);
      for (std::size_t k = 0; k < phase.grid.size(); ++k)
        if (phase.grid[k][bank] == lanes.front())
          out.push_back({static_cast<int>(p), static_cast<int>(k), static_cast<int>(bank), lanes});
    }
  }
  return out;
}

}  // namespace detail

std::string_view split_reason(Split split) {
  switch (split) {
    case Split::none: return "";
    case Split::bytes: return "together more than 128 distinct bytes";
    case Split::half_warps: return "16-byte accesses serve each half-warp in wavefronts of its own";
    case Split::merge_conflict: return "8-byte accesses: the two half-warps together would conflict";
    case Split::lane_groups: return "16-byte accesses: 4 consecutive lanes ask for more than two words";
    case Split::matrices: return "ldmatrix and stmatrix serve one 8x8 matrix at a time";
    case Split::quarters: return "cp.async.cg writes each quarter-warp on its own";
  }
  return "";
}

std::string render_map(const WarpResult& warp, int width) {
  std::string out;
  for (const auto& phase : warp.phases) {
    if (warp.phases.size() > 1)
      out += fmt::format("phase of lanes {}-{} ({}-byte accesses){}\n", phase.first_lane,
                         phase.first_lane + phase.lanes - 1, width,
                         phase.split == Split::none ? "" : fmt::format(", served apart: {}", split_reason(phase.split)));
    out += "bank ";
    for (int b = 0; b < kBanks; ++b) out += fmt::format("{:>3}", b);
    out += "\n";
    for (std::size_t k = 0; k < phase.grid.size(); ++k) {
      out += fmt::format("w{:<3} ", k);
      for (int b = 0; b < kBanks; ++b) {
        const int lane = phase.grid[k][static_cast<std::size_t>(b)];
        out += lane < 0 ? std::string("  .") : fmt::format("{:>3}", lane);
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace smemlab::banks
