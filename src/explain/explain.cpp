#include "explain/explain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

#include "smemlab/access_model.hpp"
#include "smemlab/error.hpp"

namespace smemlab::explain {
namespace {

// From the CUDA C++ Programming Guide's table of technical specifications per compute
// capability: shared memory per SM available to blocks, the 1 KiB the system reserves per
// block (from 8.0 on), resident threads and blocks per SM.
constexpr std::array kArchs{
    ArchLimits{7, 0, 96 * 1024, 0, 2048, 32},      ArchLimits{7, 5, 64 * 1024, 0, 1024, 16},
    ArchLimits{8, 0, 164 * 1024, 1024, 2048, 32},  ArchLimits{8, 6, 100 * 1024, 1024, 1536, 16},
    ArchLimits{8, 7, 164 * 1024, 1024, 2048, 16},  ArchLimits{8, 9, 100 * 1024, 1024, 1536, 24},
    ArchLimits{9, 0, 228 * 1024, 1024, 2048, 32},  ArchLimits{10, 0, 228 * 1024, 1024, 2048, 32},
    ArchLimits{12, 0, 100 * 1024, 1024, 1536, 32},
};

struct Occupancy {
  int blocks;     // resident blocks per SM
  int by_smem;    // what shared memory alone allows
  int by_threads; // what the thread count alone allows
};

Occupancy occupancy(const AccessModel& m, const ArchLimits& arch) {
  const int by_smem =
      m.smem_bytes == 0
          ? arch.max_blocks_per_sm
          : static_cast<int>(arch.smem_per_sm / (m.smem_bytes + arch.smem_reserved_per_block));
  const int by_threads = arch.max_threads_per_sm / m.block.threads();
  return {std::min({by_smem, by_threads, arch.max_blocks_per_sm}), by_smem, by_threads};
}

}  // namespace

const ArchLimits& arch_limits(int cc_major, int cc_minor) {
  for (const auto& a : kArchs)
    if (a.cc_major == cc_major && a.cc_minor == cc_minor) return a;
  throw UsageError(fmt::format("no occupancy limits for compute capability {}.{} (known: {})", cc_major,
                               cc_minor, known_archs()));
}

std::string known_archs() {
  std::vector<std::string> names;
  for (const auto& a : kArchs) names.push_back(fmt::format("{}.{}", a.cc_major, a.cc_minor));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string render(const VariantInfo& v, const Shape& shape, DType type, const ArchLimits& arch, bool json) {
  nlohmann::json doc{{"variant", v.id()},
                     {"description", v.description},
                     {"technique", v.technique},
                     {"shared_memory", smem_kind_name(v.smem)},
                     {"size", shape.label()},
                     {"type", dtype_name(type)}};
  std::string text = fmt::format("{}: {}\ntechnique:     {}\n", v.id(), v.description, v.technique);
  if (v.launch_plan != nullptr) {
    const std::string plan = v.launch_plan(shape, type);
    doc["launches"] = plan;
    text += fmt::format("launches:      {} at {}\n", plan, shape.label());
  }
  if (v.model == nullptr) {
    doc["model"] = nullptr;
    doc["why_no_model"] = v.why_no_model;
    text += fmt::format("shared memory: {}; {}\n", smem_kind_name(v.smem), v.why_no_model);
    return json ? doc.dump(2) + "\n" : text;
  }
  const AccessModel model = v.model(shape, type);
  const Prediction p = predict(model);
  const Occupancy occ = occupancy(model, arch);
  text += fmt::format("shared memory: {}, {} bytes per block of {}x{}x{} threads: {} blocks per SM fit "
                      "(shared memory: {}, threads: {}; compute capability {}.{}, {} KiB per SM)\n",
                      model.dynamic_smem ? "dynamic" : "static", model.smem_bytes, model.block.x,
                      model.block.y, model.block.z, occ.blocks, occ.by_smem, occ.by_threads, arch.cc_major,
                      arch.cc_minor, arch.smem_per_sm / 1024);
  text += fmt::format("at {} ({}): {:.0f} blocks\n", shape.label(), dtype_name(type), model.blocks);
  text += fmt::format("  {:<52} {:>2} {:>5} {:>10} {:>10} {:>14}\n", "shared-memory instruction", "op", "bytes",
                      "per block", "wavefr/warp", "total wavefr");
  nlohmann::json accesses = nlohmann::json::array();
  for (const auto& a : model.accesses) {
    const banks::Analysis an = banks::analyze(a.access);
    const double per_warp = static_cast<double>(an.wavefronts()) / static_cast<double>(an.warps.size());
    const double total = static_cast<double>(an.wavefronts()) * a.per_block * model.blocks;
    text += fmt::format("  {:<52} {:>2} {:>5} {:>10.0f} {:>10.2f} {:>14.0f}\n", a.what.substr(0, 52), a.op,
                        a.access.width, a.per_block, per_warp, total);
    text += fmt::format("      {}  (block {}x{}x{}, ideal {:.2f}/warp)\n", a.access.expression.text(),
                        a.access.block.x, a.access.block.y, a.access.block.z,
                        static_cast<double>(an.ideal()) / static_cast<double>(an.warps.size()));
    accesses.push_back({{"what", a.what}, {"op", a.op}, {"expression", a.access.expression.text()},
                        {"block", {a.access.block.x, a.access.block.y, a.access.block.z}},
                        {"width", a.access.width}, {"per_block", a.per_block},
                        {"wavefronts_per_warp", per_warp}, {"total_wavefronts", total}});
  }
  text += fmt::format("predicted shared wavefronts: loads {} (ideal {}), stores {} (ideal {})\n",
                      p.ld_wavefronts, p.ld_ideal, p.st_wavefronts, p.st_ideal);
  if (model.global_bytes > 0)
    text += fmt::format("global memory: {}; {:.3g} bytes requested", model.traffic, model.global_bytes);
  else
    text += fmt::format("global memory: {}", model.traffic);
  if (model.flops > 0 && model.global_bytes > 0)
    text += fmt::format(", {:.3g} flops: {:.3g} flop/byte", model.flops, model.flops / model.global_bytes);
  text += "\n";
  if (!model.notes.empty()) text += fmt::format("notes: {}\n", model.notes);
  doc["model"] = {{"block", {model.block.x, model.block.y, model.block.z}},
                  {"smem_bytes", model.smem_bytes},
                  {"dynamic_smem", model.dynamic_smem},
                  {"blocks", model.blocks},
                  {"accesses", accesses},
                  {"predicted", {{"ld_wavefronts", p.ld_wavefronts}, {"ld_ideal", p.ld_ideal},
                                 {"st_wavefronts", p.st_wavefronts}, {"st_ideal", p.st_ideal}}},
                  {"global_bytes", model.global_bytes},
                  {"flops", model.flops},
                  {"traffic", model.traffic},
                  {"notes", model.notes}};
  return json ? doc.dump(2) + "\n" : text;
}

}  // namespace smemlab::explain
