#include "explain/explain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <optional>

#include "explain/measure.hpp"
#include "explain/resources.hpp"
#include "smemlab/access_model.hpp"
#include "smemlab/error.hpp"

namespace smemlab::explain {
namespace {

// From the CUDA C++ Programming Guide's table of technical specifications per compute
// capability: shared memory per SM available to blocks, the 1 KiB the system reserves per
// block (from 8.0 on), resident threads and blocks per SM, registers per SM.
constexpr int k64K = 65536;
constexpr std::array kArchs{
    ArchLimits{7, 0, 96 * 1024, 0, 2048, 32, k64K},      ArchLimits{7, 5, 64 * 1024, 0, 1024, 16, k64K},
    ArchLimits{8, 0, 164 * 1024, 1024, 2048, 32, k64K},  ArchLimits{8, 6, 100 * 1024, 1024, 1536, 16, k64K},
    ArchLimits{8, 7, 164 * 1024, 1024, 2048, 16, k64K},  ArchLimits{8, 9, 100 * 1024, 1024, 1536, 24, k64K},
    ArchLimits{9, 0, 228 * 1024, 1024, 2048, 32, k64K},  ArchLimits{10, 0, 228 * 1024, 1024, 2048, 32, k64K},
    ArchLimits{12, 0, 100 * 1024, 1024, 1536, 32, k64K},
};

// Blocks of a kernel resident on one SM: the smallest of what each resource allows.
struct Occupancy {
  int blocks = 0;
  int by_registers = -1;  // -1: the kernel's registers are not known
  int by_smem = 0;
  int by_threads = 0;
  int by_blocks = 0;
  std::string bound_by;   // the resources that allow no more than `blocks`
  std::optional<CompiledKernel> kernel;  // as compiled, the instantiation with the most registers
};

Occupancy occupancy(const AccessModel& m, const ArchLimits& arch) {
  Occupancy o;
  o.by_smem = m.smem_bytes == 0 ? arch.max_blocks_per_sm
                                : static_cast<int>(arch.smem_per_sm / (m.smem_bytes + arch.smem_reserved_per_block));
  o.by_threads = arch.max_threads_per_sm / m.block.threads();
  o.by_blocks = arch.max_blocks_per_sm;
  const std::string sm = fmt::format("sm_{}{}", arch.cc_major, arch.cc_minor);
  auto kernels = compiled_kernels(m.kernel, sm);
  if (kernels.empty()) kernels = compiled_kernels(m.kernel, "");  // built for another architecture
  for (const auto& k : kernels)
    if (!o.kernel || k.registers > o.kernel->registers) o.kernel = k;
  if (o.kernel) {
    const int warps = (m.block.threads() + 31) / 32;
    const int per_warp = (o.kernel->registers * 32 + 255) / 256 * 256;
    o.by_registers = arch.registers_per_sm / (per_warp * warps);
  }
  o.blocks = std::min({o.by_smem, o.by_threads, o.by_blocks});
  if (o.by_registers >= 0) o.blocks = std::min(o.blocks, o.by_registers);
  std::vector<std::string_view> binding;
  if (o.by_registers == o.blocks) binding.push_back("registers");
  if (o.by_smem == o.blocks) binding.push_back("shared memory");
  if (o.by_threads == o.blocks) binding.push_back("threads");
  if (o.by_blocks == o.blocks) binding.push_back("the block limit");
  o.bound_by = fmt::format("{}", fmt::join(binding, " and "));
  return o;
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

std::string render(const VariantInfo& v, const Shape& shape, DType type, const ArchLimits& arch, bool json,
                   const Measurement* measured) {
  nlohmann::json doc{{"variant", v.id()},
                     {"description", v.description},
                     {"technique", v.technique},
                     {"shared_memory", smem_kind_name(v.smem)},
                     {"size", shape.label()},
                     {"type", dtype_name(type)}};
  std::string text = fmt::format("{}: {}\ntechnique:     {}\n", v.id(), v.description, v.technique);
  if (!v.tutorials.empty()) {
    nlohmann::json from = nlohmann::json::array();
    for (const Tutorial* t : v.tutorials) from.push_back({{"title", t->title}, {"original_title", t->original}});
    doc["tutorials"] = from;
    text += fmt::format("from:          the tutorial{} {}\n", v.tutorials.size() > 1 ? "s" : "", tutorial_titles(v));
  }
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
  text += fmt::format("shared memory: {}, {} bytes per block of {}x{}x{} threads\n",
                      model.dynamic_smem ? "dynamic" : "static", model.smem_bytes, model.block.x, model.block.y,
                      model.block.z);
  const std::string registers =
      occ.kernel ? fmt::format("registers: {}, ", occ.by_registers) : std::string("registers: not known, ");
  text += fmt::format("occupancy:     {} blocks per SM, bound by {} ({}shared memory: {}, threads: {}, "
                      "block limit: {}; compute capability {}.{}: {} KiB, {} registers, {} threads per SM)\n",
                      occ.blocks, occ.bound_by, registers, occ.by_smem, occ.by_threads, occ.by_blocks,
                      arch.cc_major, arch.cc_minor, arch.smem_per_sm / 1024, arch.registers_per_sm,
                      arch.max_threads_per_sm);
  if (occ.kernel)
    text += fmt::format("compiled:      {} for {}: {} registers a thread, {} bytes of static shared memory, "
                        "{} bytes of stack, {} spilled\n",
                        occ.kernel->name, occ.kernel->arch, occ.kernel->registers, occ.kernel->static_smem,
                        occ.kernel->stack_bytes, occ.kernel->spill_bytes);
  text += fmt::format("at {} ({}): {:.0f} {}\n", shape.label(), dtype_name(type), model.blocks,
                      model.per_tile ? "tiles, walked by one block per SM (counts per tile)" : "blocks");
  text += fmt::format("  {:<44} {:<17} {:>5} {:>10} {:>10} {:>14}\n", "shared-memory instruction", "op", "bytes",
                      "per block", "wavefr/warp", "total wavefr");
  nlohmann::json accesses = nlohmann::json::array();
  for (const auto& a : model.accesses) {
    const banks::Analysis an = banks::analyze(a.access);
    const double per_warp = static_cast<double>(an.wavefronts()) / static_cast<double>(an.warps.size());
    const double total = static_cast<double>(an.wavefronts()) * a.per_block * model.blocks;
    const banks::Instruction& in = a.access.instruction;
    const std::string op = in.op == banks::Op::load || in.op == banks::Op::store ? a.op : in.name();
    text += fmt::format("  {:<44} {:<17} {:>5} {:>10.0f} {:>10.2f} {:>14.0f}\n", a.what.substr(0, 44), op,
                        a.access.width, a.per_block, per_warp, total);
    text += fmt::format("      {}  (block {}x{}x{}, ideal {:.2f}/warp)\n", a.access.expression.text(),
                        a.access.block.x, a.access.block.y, a.access.block.z,
                        static_cast<double>(an.ideal()) / static_cast<double>(an.warps.size()));
    accesses.push_back({{"what", a.what}, {"op", a.op}, {"instruction", in.name()},
                        {"expression", a.access.expression.text()},
                        {"block", {a.access.block.x, a.access.block.y, a.access.block.z}},
                        {"width", a.access.width}, {"per_block", a.per_block},
                        {"wavefronts_per_warp", per_warp}, {"total_wavefronts", total}});
  }
  text += fmt::format("predicted shared wavefronts: loads {} (ideal {}), stores {} (ideal {}){}\n",
                      p.ld_wavefronts, p.ld_ideal, p.st_wavefronts, p.st_ideal,
                      p.cp_wavefronts > 0 ? fmt::format(", cp.async writes {} (ideal {})", p.cp_wavefronts, p.cp_ideal)
                                          : std::string());
  if (model.global_bytes > 0)
    text += fmt::format("global memory: {}; {:.3g} bytes requested", model.traffic, model.global_bytes);
  else
    text += fmt::format("global memory: {}", model.traffic);
  if (model.flops > 0 && model.global_bytes > 0)
    text += fmt::format(", {:.3g} flops: {:.3g} flop/byte", model.flops, model.flops / model.global_bytes);
  text += "\n";
  if (!model.notes.empty()) text += fmt::format("notes: {}\n", model.notes);
  if (measured != nullptr) {
    // A model counted per block is scaled to the blocks the measured launch had.
    const double scale = !model.per_tile && measured->grid_blocks > 0 && model.blocks > 0
                             ? measured->grid_blocks / model.blocks
                             : 1.0;
    const double ld = static_cast<double>(p.ld_wavefronts) * scale;
    const double st = static_cast<double>(p.st_wavefronts) * scale;
    const double conflicts = static_cast<double>(p.ld_wavefronts - p.ld_ideal + p.st_wavefronts - p.st_ideal) * scale;
    const int max_warps = arch.max_threads_per_sm / 32;
    const double occupancy_pct = 100.0 * occ.blocks * ((model.block.threads() + 31) / 32) / max_warps;
    const double cp = static_cast<double>(p.cp_wavefronts) * scale;
    const bool ok = within_tolerance(ld, measured->ld_wavefronts, st, measured->st_wavefronts) &&
                    copies_within_tolerance(cp, measured->cp_wavefronts);
    const auto ratio = [](double a, double b) { return b > 0 ? fmt::format("{:.3f}", a / b) : std::string("-"); };
    text += fmt::format("measured with Nsight Compute: {}, {:.0f} blocks{}\n", measured->kernel, measured->grid_blocks,
                        scale != 1.0 ? fmt::format(" (the model, per block, scaled by {:.0f})", scale) : "");
    text += fmt::format("  {:<32} {:>16} {:>16} {:>10}\n", "", "predicted", "measured", "ratio");
    text += fmt::format("  {:<32} {:>16.0f} {:>16.0f} {:>10}\n", "shared load wavefronts", ld, measured->ld_wavefronts,
                        ratio(ld, measured->ld_wavefronts));
    text += fmt::format("  {:<32} {:>16.0f} {:>16.0f} {:>10}\n", "shared store wavefronts", st, measured->st_wavefronts,
                        ratio(st, measured->st_wavefronts));
    text += fmt::format("  {:<32} {:>16.0f} {:>16.0f} {:>10}\n", "cp.async write wavefronts", cp,
                        measured->cp_wavefronts, ratio(cp, measured->cp_wavefronts));
    const double measured_conflicts = measured->ld_conflicts + measured->st_conflicts;
    text += fmt::format("  {:<32} {:>16.0f} {:>16.0f} {:>10}\n", "bank conflicts (extra wavefronts)", conflicts,
                        measured_conflicts, ratio(conflicts, measured_conflicts));
    text += fmt::format("  {:<32} {:>16.3g} {:>16.3g} {:>10}\n", "bytes: requested / from DRAM", model.global_bytes,
                        measured->dram_bytes, ratio(model.global_bytes, measured->dram_bytes));
    text += fmt::format("  {:<32} {:>15.1f}% {:>15.1f}% {:>10}\n", "occupancy: theoretical / achieved", occupancy_pct,
                        measured->achieved_occupancy_pct, ratio(occupancy_pct, measured->achieved_occupancy_pct));
    std::vector<std::string> stalls;
    for (const auto& [name, cycles] : measured->stalls) stalls.push_back(fmt::format("{} {:.2f}", name, cycles));
    text += fmt::format("  top stalls (warps stalled per issue): {}\n", fmt::join(stalls, ", "));
    text += fmt::format("  within the model's tolerance (loads and modelled cp.async writes within 5%, stores 1% "
                        "above to 16% below): {}\n",
                        ok ? "yes" : "NO");
    nlohmann::json stall_doc = nlohmann::json::object();
    for (const auto& [name, cycles] : measured->stalls) stall_doc[name] = cycles;
    doc["measured"] = {{"kernel", measured->kernel},
                       {"grid_blocks", measured->grid_blocks},
                       {"model_scale", scale},
                       {"ld_wavefronts", {{"predicted", ld}, {"measured", measured->ld_wavefronts}}},
                       {"st_wavefronts", {{"predicted", st}, {"measured", measured->st_wavefronts}}},
                       {"cp_wavefronts", {{"predicted", cp}, {"measured", measured->cp_wavefronts}}},
                       {"bank_conflicts", {{"predicted", conflicts}, {"measured", measured_conflicts}}},
                       {"bytes", {{"requested", model.global_bytes}, {"dram", measured->dram_bytes}}},
                       {"occupancy_pct", {{"theoretical", occupancy_pct}, {"achieved", measured->achieved_occupancy_pct}}},
                       {"top_stalls", stall_doc},
                       {"within_tolerance", ok}};
  }
  nlohmann::json occupancy_doc{{"blocks_per_sm", occ.blocks},
                                {"bound_by", occ.bound_by},
                                {"by_registers", occ.by_registers < 0 ? nlohmann::json() : nlohmann::json(occ.by_registers)},
                                {"by_shared_memory", occ.by_smem},
                                {"by_threads", occ.by_threads},
                                {"by_block_limit", occ.by_blocks},
                                {"compute_capability", fmt::format("{}.{}", arch.cc_major, arch.cc_minor)}};
  if (occ.kernel)
    occupancy_doc["compiled"] = {{"kernel", occ.kernel->name}, {"arch", occ.kernel->arch},
                                 {"registers", occ.kernel->registers}, {"static_smem", occ.kernel->static_smem},
                                 {"stack_bytes", occ.kernel->stack_bytes}, {"spill_bytes", occ.kernel->spill_bytes}};
  doc["model"] = {{"block", {model.block.x, model.block.y, model.block.z}},
                  {"kernel", model.kernel},
                  {"occupancy", occupancy_doc},
                  {"smem_bytes", model.smem_bytes},
                  {"dynamic_smem", model.dynamic_smem},
                  {"blocks", model.blocks},
                  {"accesses", accesses},
                  {"predicted", {{"ld_wavefronts", p.ld_wavefronts}, {"ld_ideal", p.ld_ideal},
                                 {"st_wavefronts", p.st_wavefronts}, {"st_ideal", p.st_ideal},
                                 {"cp_wavefronts", p.cp_wavefronts}, {"cp_ideal", p.cp_ideal}}},
                  {"global_bytes", model.global_bytes},
                  {"flops", model.flops},
                  {"traffic", model.traffic},
                  {"notes", model.notes}};
  return json ? doc.dump(2) + "\n" : text;
}

}  // namespace smemlab::explain
