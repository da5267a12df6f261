// The bank analyzer's reports: `smemlab banks` prints these.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "smemlab/banks.hpp"

namespace smemlab::banks {
namespace {

std::string join_lanes(const std::vector<int>& v, std::size_t most) {
  const auto shown = std::vector<int>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(most, v.size())));
  return fmt::format("{}{}", fmt::join(shown, ","), v.size() > most ? fmt::format(",... ({} lanes)", v.size()) : "");
}

}  // namespace

std::string render_table(const Access& access, const Analysis& analysis, int map_warp) {
  std::string out = fmt::format(
      "'{}' ({}), block {}x{}x{}, {}-byte accesses: {} wavefronts for {} ideal ({:.2f}x)\n",
      access.expression.text(), access.bytes ? "byte address" : "element index", access.block.x,
      access.block.y, access.block.z, access.width, analysis.wavefronts(), analysis.ideal(),
      static_cast<double>(analysis.wavefronts()) / static_cast<double>(analysis.ideal()));
  out += fmt::format("{:>5} {:>6} {:>11} {:>6} {:>5}  {}\n", "warp", "lanes", "wavefronts", "ideal", "ways",
                     "banks asked for more than one word");
  for (const auto& w : analysis.warps) {
    std::string detail;
    for (std::size_t i = 0; i < w.collisions.size() && i < 3; ++i)
      detail += fmt::format("{}bank {}: lanes {}", i ? "; " : "", w.collisions[i].bank, join_lanes(w.collisions[i].lanes, 8));
    if (w.collisions.size() > 3) detail += fmt::format("; +{} more banks", w.collisions.size() - 3);
    out += fmt::format("{:>5} {:>6} {:>11} {:>6} {:>5}  {}\n", w.warp, w.active_lanes, w.wavefronts, w.ideal,
                       w.ways, detail.empty() ? "-" : detail);
  }
  if (map_warp >= 0) {
    out += fmt::format("\nwarp {}: banks across, wavefronts down, the lane served in each\n", map_warp);
    out += render_map(analysis.warps.at(static_cast<std::size_t>(map_warp)), access.width);
  }
  return out;
}

std::string render_json(const Access& access, const Analysis& analysis) {
  nlohmann::json warps = nlohmann::json::array();
  for (const auto& w : analysis.warps) {
    nlohmann::json collisions = nlohmann::json::array();
    for (const auto& c : w.collisions)
      collisions.push_back({{"bank", c.bank}, {"lanes", c.lanes}, {"words", c.words}});
    warps.push_back({{"warp", w.warp}, {"lanes", w.active_lanes}, {"wavefronts", w.wavefronts},
                     {"ideal", w.ideal}, {"ways", w.ways}, {"collisions", collisions}});
  }
  const nlohmann::json doc{{"expression", access.expression.text()},
                           {"block", {access.block.x, access.block.y, access.block.z}},
                           {"width", access.width},
                           {"bytes", access.bytes},
                           {"base", access.base},
                           {"warps", warps},
                           {"summary", {{"warps", analysis.warps.size()},
                                        {"wavefronts", analysis.wavefronts()},
                                        {"ideal", analysis.ideal()}}}};
  return doc.dump(2) + "\n";
}

}  // namespace smemlab::banks
