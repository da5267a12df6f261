// The bank analyzer's reports: `smemlab banks` prints these. A warp's wavefronts beyond the
// ideal have two causes, each named: phases served apart that together would fit in fewer
// wavefronts (how wide accesses are split), and banks asked for several words in one phase.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <set>

#include "banks/broadcasts.hpp"
#include "core/text.hpp"
#include "smemlab/banks.hpp"

namespace smemlab::banks {
namespace {

std::string join_lanes(const std::vector<int>& v, std::size_t most) {
  const auto shown = std::vector<int>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(most, v.size())));
  return fmt::format("{}{}", fmt::join(shown, ","), v.size() > most ? fmt::format(",... ({} lanes)", v.size()) : "");
}

std::string lane_range(const Phase& p) { return fmt::format("lanes {}-{}", p.first_lane, p.first_lane + p.lanes - 1); }

// Wavefronts the split into phases costs: the phases' own ideals over the warp's.
int split_cost(const WarpResult& w) {
  int sum = 0;
  for (const auto& p : w.phases) sum += p.ideal;
  return sum - w.ideal;
}

// Why the warp needs more than its ideal, in words; "-" when it does not.
std::string why(const WarpResult& w, const Instruction& in) {
  std::vector<std::string> parts;
  if (const int cost = split_cost(w); cost > 0) {
    std::set<std::string_view> reasons;
    for (const auto& p : w.phases)
      if (p.split != Split::none && p.split != Split::bytes) reasons.insert(split_reason(p.split));
    parts.push_back(fmt::format("+{} split: {}", cost, fmt::join(reasons, "; ")));
  }
  int conflicts = 0;
  int sector_cost = 0;
  int partial = 0;
  int lines = 0;
  for (const auto& p : w.phases) {
    (in.op == Op::cp_async_cg ? sector_cost : conflicts) += p.wavefronts - p.ideal;
    partial += p.partial_sectors;
    lines += p.wavefronts - p.partial_sectors;
  }
  if (sector_cost > 0)
    parts.push_back(fmt::format(
        "+{} sector layout: cp.async.cg writes whole 32-byte sectors one 128-byte line a "
        "wavefront ({}) and each sector written in part on its own ({})",
        sector_cost, count_of(lines, "line"), partial));
  if (conflicts > 0) {
    std::string banks;
    for (std::size_t i = 0; i < w.collisions.size() && i < 3; ++i) {
      const Collision& c = w.collisions[i];
      const std::string where = w.phases.size() > 1 ? lane_range(w.phases[static_cast<std::size_t>(c.phase)]) + ", " : "";
      // atom.cluster serves each lane apart, on one word or not: name the lanes, then their words.
      banks += in.op == Op::atom_cluster
                   ? fmt::format("{}{}bank {}: {} apart, on {}", i ? "; " : "", where, c.bank,
                                 count_of(std::ssize(c.lanes), "lane"), count_of(std::ssize(c.words), "word"))
                   : fmt::format("{}{}bank {}: {} words, lanes {}", i ? "; " : "", where, c.bank, c.words.size(),
                                 join_lanes(c.lanes, 8));
    }
    if (w.collisions.size() > 3)
      banks +=
          fmt::format("; +{}", count_of(std::ssize(w.collisions) - 3, "more bank", "more banks"));
    parts.push_back(fmt::format("+{} bank conflict: {}", conflicts, banks));
  }
  return parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string render_table(const Access& access, const Analysis& analysis, int map_warp) {
  const Instruction& in = access.instruction;
  const std::string what = in.op == Op::load || in.op == Op::store
                               ? fmt::format("{}-byte accesses", access.width)
                           : in.matrix() ? fmt::format("{} (16-byte rows, {} lanes give addresses)", in.name(),
                                                       in.address_lanes())
                                         : fmt::format("{} of {} bytes", in.name(), access.width);
  std::string out = fmt::format(
      "'{}' ({}{}), block {}x{}x{}, {}: {} for {} ideal ({:.2f}x)\n",
      access.expression.text(), access.bytes ? "byte address" : "element index",
      access.swizzle != 0 ? fmt::format(", {}-byte swizzle", access.swizzle) : "", access.block.x,
      access.block.y, access.block.z, what, count_of(analysis.wavefronts(), "wavefront"), analysis.ideal(),
      static_cast<double>(analysis.wavefronts()) / static_cast<double>(analysis.ideal()));
  for (const auto& warning : analysis.warnings) out += "warning: " + wrap(warning, 9, 100) + "\n";
  if (access.expression.random()) {
    const Expected mean = expected(access);
    out += wrap(fmt::format("rand(): the warps below take draw {} of the values; over {} draws the block "
                            "averages {:.2f} wavefronts for {:.2f} ideal",
                            access.draw, kDraws, mean.wavefronts, mean.ideal),
                0, 100) +
           "\n";
  }
  out += fmt::format("{:>7} {:>6} {:>11} {:>6} {:>5}  {}\n", "warp", "lanes", "wavefronts", "ideal", "ways",
                     "why more than ideal");
  // Consecutive warps whose rows differ at most in the banks named are shown once.
  const auto row = [&](const WarpResult& w) {
    return fmt::format("{:>6} {:>11} {:>6} {:>5}  {}", w.active_lanes, w.wavefronts, w.ideal, w.ways, why(w, access.instruction));
  };
  const std::regex bank_number(R"(bank \d+)");
  const auto pattern = [&](const WarpResult& w) { return std::regex_replace(row(w), bank_number, "bank #"); };
  for (std::size_t first = 0; first < analysis.warps.size();) {
    const std::string text = row(analysis.warps[first]);
    std::size_t last = first;
    bool other_banks = false;
    while (last + 1 < analysis.warps.size() && pattern(analysis.warps[last + 1]) == pattern(analysis.warps[first]))
      other_banks |= row(analysis.warps[++last]) != text;
    const std::string warps = last == first ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
    out += fmt::format("{:>7} {}{}\n", warps, text, other_banks ? " (as warp " + std::to_string(first) + "; the others in other banks)" : "");
    first = last + 1;
  }
  if (map_warp >= 0) {
    out += fmt::format("\nwarp {}: banks across, wavefronts down, the lane served in each\n", map_warp);
    out += render_map(analysis.warps.at(static_cast<std::size_t>(map_warp)), access.width);
  }
  return out;
}

std::string render_json(const Access& access, const Analysis& analysis, int map_warp) {
  nlohmann::json warps = nlohmann::json::array();
  for (const auto& w : analysis.warps) {
    nlohmann::json phases = nlohmann::json::array();
    for (const auto& p : w.phases)
      phases.push_back({{"first_lane", p.first_lane}, {"lanes", p.lanes}, {"wavefronts", p.wavefronts},
                        {"ideal", p.ideal}, {"partial_sectors", p.partial_sectors},
                        {"split", p.split == Split::none ? nlohmann::json() : nlohmann::json(split_reason(p.split))}});
    nlohmann::json collisions = nlohmann::json::array();
    for (const auto& c : w.collisions)
      collisions.push_back({{"bank", c.bank}, {"phase", c.phase}, {"lanes", c.lanes}, {"words", c.words}});
    warps.push_back({{"warp", w.warp}, {"lanes", w.active_lanes}, {"wavefronts", w.wavefronts},
                     {"ideal", w.ideal}, {"ways", w.ways}, {"split_wavefronts", split_cost(w)},
                     {"why", why(w, access.instruction)}, {"phases", phases}, {"collisions", collisions}});
  }
  nlohmann::json doc{{"expression", access.expression.text()},
                     {"bits", access.expression.bits()},
                     {"warnings", analysis.warnings},
                     {"block", {access.block.x, access.block.y, access.block.z}},
                     {"instruction", access.instruction.name()},
                     {"width", access.width},
                     {"bytes", access.bytes},
                     {"base", access.base},
                     {"swizzle", access.swizzle},
                     {"warps", warps},
                     {"summary", {{"warps", analysis.warps.size()},
                                  {"wavefronts", analysis.wavefronts()},
                                  {"ideal", analysis.ideal()}}}};
  if (access.expression.random()) {
    const Expected mean = expected(access);
    doc["expected"] = {{"draws", kDraws}, {"wavefronts", mean.wavefronts}, {"ideal", mean.ideal}};
  }
  if (map_warp >= 0) {
    // Per phase of that warp: per wavefront, per bank, the lane served (null: none), and the
    // cells whose word several lanes share (a broadcast), with all of those lanes.
    const WarpResult& warp = analysis.warps.at(static_cast<std::size_t>(map_warp));
    const std::vector<detail::Broadcast> shared = detail::broadcasts(access, warp);
    nlohmann::json map = nlohmann::json::array();
    for (std::size_t i = 0; i < warp.phases.size(); ++i) {
      const Phase& p = warp.phases[i];
      nlohmann::json grid = nlohmann::json::array();
      for (const auto& wavefront : p.grid) {
        nlohmann::json lanes = nlohmann::json::array();
        for (const int lane : wavefront) lanes.push_back(lane < 0 ? nlohmann::json() : nlohmann::json(lane));
        grid.push_back(lanes);
      }
      nlohmann::json broadcasts = nlohmann::json::array();
      for (const auto& b : shared)
        if (b.phase == static_cast<int>(i))
          broadcasts.push_back({{"wavefront", b.wavefront}, {"bank", b.bank}, {"lanes", b.lanes}});
      map.push_back({{"first_lane", p.first_lane}, {"lanes", p.lanes}, {"wavefronts", grid},
                     {"broadcasts", broadcasts}});
    }
    doc["map"] = {{"warp", map_warp}, {"phases", map}};
  }
  return doc.dump(2) + "\n";
}

}  // namespace smemlab::banks
