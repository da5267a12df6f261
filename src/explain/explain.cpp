#include "explain/explain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/text.hpp"
#include "explain/measure.hpp"
#include "explain/resources.hpp"
#include "smemlab/error.hpp"

namespace smemlab::explain {
namespace {

// From the CUDA C++ Programming Guide's table of technical specifications per compute
// capability: shared memory per SM available to blocks, the 1 KiB the system reserves per
// block (from 8.0 on), resident threads and blocks per SM, registers per SM.
constexpr int k64K = 65536;
constexpr std::array kArchs{
    ArchLimits{7, 0, 96 * 1024, 0, 2048, 32, k64K},
    ArchLimits{7, 5, 64 * 1024, 0, 1024, 16, k64K},
    ArchLimits{8, 0, 164 * 1024, 1024, 2048, 32, k64K},
    ArchLimits{8, 6, 100 * 1024, 1024, 1536, 16, k64K},
    ArchLimits{8, 7, 164 * 1024, 1024, 2048, 16, k64K},
    ArchLimits{8, 9, 100 * 1024, 1024, 1536, 24, k64K},
    ArchLimits{9, 0, 228 * 1024, 1024, 2048, 32, k64K},
    ArchLimits{10, 0, 228 * 1024, 1024, 2048, 32, k64K},
    ArchLimits{12, 0, 100 * 1024, 1024, 1536, 32, k64K},
};

// ---- Computing ----

// The compiled instantiations the model's kernel name starts, for the architecture (else any
// built), one per name, the one with the most registers first: occupancy takes it.
std::vector<CompiledKernel> instantiations(const AccessModel& m, const ArchLimits& arch) {
  auto kernels = compiled_kernels(m.kernel, fmt::format("sm_{}{}", arch.cc_major, arch.cc_minor));
  if (kernels.empty()) kernels = compiled_kernels(m.kernel, "");  // built for another architecture
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return a.registers > b.registers; });
  std::vector<CompiledKernel> unique;
  for (const auto& k : kernels)
    if (std::none_of(unique.begin(), unique.end(), [&](const auto& u) { return u.name == k.name; }))
      unique.push_back(k);
  return unique;
}

Occupancy occupancy(const AccessModel& m, const ArchLimits& arch,
                    const std::optional<CompiledResources>& compiled) {
  Occupancy o{};
  o.arch = arch;
  o.by_smem =
      m.smem_bytes == 0
          ? arch.max_blocks_per_sm
          : static_cast<int>(arch.smem_per_sm / (m.smem_bytes + arch.smem_reserved_per_block));
  o.by_threads = arch.max_threads_per_sm / m.block.threads();
  o.by_blocks = arch.max_blocks_per_sm;
  if (compiled) {
    const int warps = (m.block.threads() + 31) / 32;
    const int per_warp = (compiled->registers * 32 + 255) / 256 * 256;
    o.by_registers = arch.registers_per_sm / (per_warp * warps);
  }
  o.blocks = std::min({o.by_smem, o.by_threads, o.by_blocks, o.by_registers.value_or(o.by_blocks)});
  std::vector<std::string_view> binding;
  if (o.by_registers == o.blocks) binding.push_back("registers");
  if (o.by_smem == o.blocks) binding.push_back("shared memory");
  if (o.by_threads == o.blocks) binding.push_back("threads");
  if (o.by_blocks == o.blocks) binding.push_back("the block limit");
  o.bound_by = fmt::format("{}", fmt::join(binding, " and "));
  return o;
}

std::array<int, 3> dims(const banks::Block& b) { return {b.x, b.y, b.z}; }

double round_if(bool rounded, double x) { return rounded ? std::round(x) : x; }

AccessLine access_line(const CountedAccess& a, const AccessCount& counted) {
  const double warps = std::ceil(a.access.block.threads() / 32.0);
  return {.what = a.what,
          .op = a.op,
          .instruction = a.access.instruction.name(),
          .expression = a.access.expression.text(),
          .block = dims(a.access.block),
          .width = a.access.width,
          .per_block = a.per_block,
          .per_launch = a.per_launch,
          .wavefronts_per_warp = counted.pattern.wavefronts / warps,
          .ideal_per_warp = counted.pattern.ideal / warps,
          // A mean over draws is a count all the same: whole wavefronts.
          .total_wavefronts = round_if(a.access.expression.random(), counted.pattern.wavefronts * counted.runs)};
}

ModelExplanation model_explanation(const AccessModel& m, const ArchLimits& arch) {
  ModelExplanation out;
  const std::vector<CompiledKernel> kernels = instantiations(m, arch);
  if (kernels.empty()) {
    // Not compiled in this build: the model's own name, without the argument list it opens.
    out.kernel = m.kernel.ends_with('(') ? m.kernel.substr(0, m.kernel.size() - 1) : m.kernel;
  } else {
    const CompiledKernel& k = kernels.front();
    out.kernel = k.name;
    out.compiled =
        CompiledResources{k.arch, k.registers, k.static_smem, k.stack_bytes, k.spill_bytes};
    for (auto it = kernels.begin() + 1; it != kernels.end(); ++it)
      out.other_kernels.push_back(it->name);
  }
  out.block = dims(m.block);
  out.smem_bytes = m.smem_bytes;
  out.dynamic_smem = m.dynamic_smem;
  out.blocks = m.blocks;
  out.per_tile = m.per_tile;
  out.tensor_cores_read_shared = m.tensor_cores_read_shared;
  out.occupancy = occupancy(m, arch, out.compiled);
  std::vector<AccessCount> counts;  // each access counted once: a rand() pattern's draws take time
  for (const auto& a : m.accesses) {
    counts.push_back(count_access(a, m.blocks));
    out.accesses.push_back(access_line(a, counts.back()));
  }
  out.predicted = predict(m, counts);
  out.predicted_per_launch = predict(m, counts, true);
  out.global_bytes = m.global_bytes;
  out.flops = m.flops;
  out.traffic = m.traffic;
  out.notes = m.notes;
  return out;
}

MeasuredExplanation measured_explanation(const ModelExplanation& model, const Measurement& m) {
  // A model counted per block is scaled to the blocks the measured launch had.
  const double scale =
      !model.per_tile && m.grid_blocks > 0 && model.blocks > 0 ? m.grid_blocks / model.blocks : 1.0;
  const Prediction& p = model.predicted;
  const Prediction& fixed = model.predicted_per_launch;
  const auto scaled = [&](long long count, long long per_launch) {
    return static_cast<double>(count - per_launch) * scale + static_cast<double>(per_launch);
  };
  const int warps = (model.block[0] * model.block[1] * model.block[2] + 31) / 32;
  const int max_warps = model.occupancy.arch.max_threads_per_sm / 32;
  MeasuredExplanation out;
  out.kernel = m.kernel;
  out.grid_blocks = m.grid_blocks;
  out.model_scale = scale;
  out.ld_wavefronts = {scaled(p.ld_wavefronts, fixed.ld_wavefronts),
                       model.tensor_cores_read_shared ? m.addr_ld_wavefronts : m.ld_wavefronts};
  out.l1_ld_wavefronts = m.ld_wavefronts;
  out.st_wavefronts = {scaled(p.st_wavefronts, fixed.st_wavefronts), m.st_wavefronts};
  out.cp_wavefronts = {scaled(p.cp_wavefronts, fixed.cp_wavefronts), m.cp_wavefronts};
  out.atom_wavefronts = {scaled(p.atom_wavefronts, fixed.atom_wavefronts), m.atom_wavefronts};
  out.l1_st_wavefronts = m.l1_st_wavefronts;
  out.bank_conflicts = {scaled(p.ld_wavefronts - p.ld_ideal + p.st_wavefronts - p.st_ideal,
                               fixed.ld_wavefronts - fixed.ld_ideal + fixed.st_wavefronts - fixed.st_ideal),
                        m.ld_conflicts + m.st_conflicts};
  out.bytes = {model.global_bytes, m.dram_bytes};
  out.occupancy_pct = {100.0 * model.occupancy.blocks * warps / max_warps,
                       m.achieved_occupancy_pct};
  out.top_stalls = m.stalls;
  out.within_tolerance =
      within_tolerance(out.ld_wavefronts.predicted, out.ld_wavefronts.measured) &&
      within_tolerance(out.st_wavefronts.predicted, out.st_wavefronts.measured) &&
      copies_within_tolerance(out.cp_wavefronts.predicted, out.cp_wavefronts.measured) &&
      (std::isnan(out.atom_wavefronts.measured) ? out.atom_wavefronts.predicted == 0
                                                 : within_tolerance(out.atom_wavefronts.predicted,
                                                                    out.atom_wavefronts.measured));
  return out;
}

// ---- Text ----

constexpr std::size_t kLabel = 15;  // the column where a field's text starts

// `first`, then `text` wrapped at spaces within kTextColumns; later lines start at column
// `indent`. Unlike core/text.hpp's wrap, a word too long for a line (a kernel's full name) is
// cut, so that no line of an explanation is wider than the terminal.
std::string wrap(std::string_view first, std::string_view text, std::size_t indent) {
  std::string out(first);
  std::string line(first);
  bool line_has_words = false;
  const auto finish_line = [&] {
    out += '\n';
    line.assign(indent, ' ');
    out += line;
    line_has_words = false;
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find(' ', pos), text.size());
    std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (line_has_words && columns(line) + 1 + columns(word) > kTextColumns) finish_line();
    if (line_has_words) {
      out += ' ';
      line += ' ';
    }
    while (columns(line) + columns(word) > kTextColumns) {
      // Cut at a character boundary.
      std::size_t room = kTextColumns - columns(line);
      std::size_t cut = 0;
      for (std::size_t seen = 0; cut < word.size(); ++cut) {
        if ((static_cast<unsigned char>(word[cut]) & 0xC0) != 0x80 && seen++ == room) break;
      }
      out += word.substr(0, cut);
      word.remove_prefix(cut);
      finish_line();
    }
    out += word;
    line += word;
    line_has_words = true;
  }
  return out + '\n';
}

// "label:" padded to the text column, then the text, wrapped.
std::string field(std::string_view label, std::string_view text) {
  return wrap(fmt::format("{:<{}}", fmt::format("{}:", label), kLabel), text, kLabel);
}

std::string indented(std::string_view text) { return wrap(std::string(kLabel, ' '), text, kLabel); }

// "1 block", "2 blocks".
std::string count(double n, std::string_view noun) { return count_of(std::llround(n), noun); }

// A count as the table prints it: whole numbers without decimals.
std::string number(double v) {
  return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{:.0f}", v)
                                                  : fmt::format("{:.3f}", v);
}

std::string block_text(const std::array<int, 3>& b) {
  return fmt::format("{}x{}x{}", b[0], b[1], b[2]);
}

std::string step_text(const Step& step) {
  std::string text =
      field("step", fmt::format("{} ({}){}", step.number, step.file,
                                step.previous
                                    ? fmt::format(", after {} (step {}): {}", step.previous->id(),
                                                  step.previous_number, step.previous->description)
                                    : std::string(", the first of its family")));
  if (!step.changed.empty()) text += field("changed", step.changed);
  if (!step.should_buy.empty()) text += field("should buy", step.should_buy);
  if (step.changed.empty() && step.should_buy.empty()) text += field("the step", step.summary);
  if (!step.results) return text + field("bought", step.why_no_results);
  const StepResults& r = *step.results;
  // "(1.03 ms)", and whether the result failed verification.
  const auto time = [](const StepTiming& t) {
    return fmt::format("({:.4g} ms){}", t.median_ms,
                       t.verified ? "" : ", its result failed verification");
  };
  std::string bought = fmt::format(
      "on {}, at {} ({}), {}:", r.gpu, r.size, r.type,
      r.measured_here ? fmt::format("timed now on this GPU (median of {})", count(r.reps, "run"))
                      : "in the committed run " + r.file);
  if (!r.step) return text + field("bought", bought + " this step did not run");
  bought += fmt::format(" this step {:.3f} of {}'s speed {}", r.step->vs_reference, r.reference,
                        time(*r.step));
  if (r.previous)
    bought += fmt::format("; the previous step {:.3f} {}: {:.2f}x the previous step's speed",
                          r.previous->vs_reference, time(*r.previous),
                          r.previous->median_ms / r.step->median_ms);
  else if (step.previous)
    bought += fmt::format("; the previous step is not in that run");
  return text + field("bought", bought);
}

std::string occupancy_text(const ModelExplanation& m) {
  const Occupancy& o = m.occupancy;
  const ArchLimits& a = o.arch;
  std::string text =
      field("occupancy", fmt::format("{} per SM on compute capability {}.{}, bound by {}",
                                     count(o.blocks, "block"), a.cc_major, a.cc_minor, o.bound_by));
  text += indented(fmt::format(
      "blocks each resource allows: registers {}, shared memory {}, threads {}, block limit {}",
      o.by_registers ? std::to_string(*o.by_registers) : std::string("not known"), o.by_smem,
      o.by_threads, o.by_blocks));
  text += indented(
      fmt::format("an SM of {}.{} holds {} KiB of shared memory for blocks, {}, {}, {}", a.cc_major,
                  a.cc_minor, a.smem_per_sm / 1024, count(a.registers_per_sm, "register"),
                  count(a.max_threads_per_sm, "thread"), count(a.max_blocks_per_sm, "block")));
  return text;
}

std::string model_text(const ModelExplanation& m, const Explanation& e) {
  std::string text =
      field("shared memory",
            fmt::format("{}, {} per block of {} threads", m.dynamic_smem ? "dynamic" : "static",
                        count(static_cast<double>(m.smem_bytes), "byte"), block_text(m.block)));
  text += field("kernel", m.kernel);
  if (m.compiled)
    text += indented(
        fmt::format("compiled for {}: {} a thread, {} of static shared memory, {} of stack, "
                    "{} spilled",
                    m.compiled->arch, count(m.compiled->registers, "register"),
                    count(static_cast<double>(m.compiled->static_smem), "byte"),
                    count(static_cast<double>(m.compiled->stack_bytes), "byte"),
                    count(static_cast<double>(m.compiled->spill_bytes), "byte")));
  else
    text += indented("not compiled in this build: registers not known");
  for (const auto& k : m.other_kernels) text += field("also compiled", k);
  text += occupancy_text(m);
  text += wrap("",
               fmt::format("at {} ({}): {}", e.size, e.type,
                           m.per_tile ? count(m.blocks, "tile") +
                                            ", walked by one block per SM (counts per tile)"
                                      : count(m.blocks, "block")),
               2);
  if (m.accesses.empty())
    text += "  no shared-memory instruction that the load/store unit counts\n";
  else
    text += fmt::format("  {:<4}  {:<17}  {:>5}  {:>9}  {:>15}  {:>10}  {:>16}\n", "op",
                        "instruction", "bytes", "per block", "wavefronts/warp", "ideal/warp",
                        "total wavefronts");
  for (const AccessLine& a : m.accesses) {
    text += fmt::format("  {:<4}  {:<17}  {:>5}  {:>9}  {:>15.2f}  {:>10.2f}  {:>16}\n", a.op,
                        a.instruction, a.width, number(a.per_block), a.wavefronts_per_warp,
                        a.ideal_per_warp, number(a.total_wavefronts));
    text += wrap("        ",
                 fmt::format("{}: {}, block {}{}", a.what, a.expression, block_text(a.block),
                             a.per_launch ? " (per launch, not per block)" : ""),
                 8);
  }
  const Prediction& p = m.predicted;
  text += wrap(
      "",
      fmt::format("predicted shared wavefronts: loads {} (ideal {}), stores {} (ideal {}){}{}",
                  p.ld_wavefronts, p.ld_ideal, p.st_wavefronts, p.st_ideal,
                  p.cp_wavefronts > 0
                      ? fmt::format(", cp.async writes {} (ideal {})", p.cp_wavefronts, p.cp_ideal)
                      : std::string(),
                  p.atom_wavefronts > 0
                      ? fmt::format(", atomics {} (ideal {})", p.atom_wavefronts, p.atom_ideal)
                      : std::string()),
      kLabel);
  std::string global = m.traffic;
  if (m.global_bytes > 0) global += fmt::format("; {:.3g} bytes requested", m.global_bytes);
  if (m.flops > 0 && m.global_bytes > 0)
    global += fmt::format(", {:.3g} flops: {:.3g} flop/byte", m.flops, m.flops / m.global_bytes);
  text += field("global memory", global);
  if (!m.notes.empty()) text += field("notes", m.notes);
  return text;
}

std::string ratio(double a, double b) {
  return b > 0 ? fmt::format("{:.3f}", a / b) : std::string("-");
}

std::string measured_text(const MeasuredExplanation& m) {
  std::string text = wrap(
      "",
      fmt::format("measured with Nsight Compute: {}, {}{}", m.kernel, count(m.grid_blocks, "block"),
                  m.model_scale != 1.0
                      ? fmt::format(" (the model's counts per block scaled by {:.3g})", m.model_scale)
                      : ""),
      kLabel);
  text += fmt::format("  {:<34} {:>16} {:>16} {:>10}\n", "", "predicted", "measured", "ratio");
  const auto row = [&](std::string_view what, const Compared& c, bool percent = false) {
    const std::string spec = percent                         ? "{:>15.1f}%"
                             : std::abs(c.predicted) >= 1e15 ? "{:>16.3g}"
                                                             : "{:>16.0f}";
    return fmt::format("  {:<34} {} {} {:>10}\n", what,
                       fmt::format(fmt::runtime(spec), c.predicted),
                       fmt::format(fmt::runtime(spec), c.measured), ratio(c.predicted, c.measured));
  };
  const auto l1_row = [&](double counted, double predicted) {
    return fmt::format("  {:<34} {:>16} {:>16.0f} {:>10}\n", "  as the L1 counted them", "", counted,
                       ratio(predicted, counted));
  };
  text += row("shared load wavefronts", m.ld_wavefronts);
  if (!std::isnan(m.l1_ld_wavefronts) && m.l1_ld_wavefronts != m.ld_wavefronts.measured)
    text += l1_row(m.l1_ld_wavefronts, m.ld_wavefronts.predicted);
  text += row("shared store wavefronts", m.st_wavefronts);
  text += l1_row(m.l1_st_wavefronts, m.st_wavefronts.predicted);
  text += row("cp.async write wavefronts", m.cp_wavefronts);
  if (m.atom_wavefronts.predicted > 0 || m.atom_wavefronts.measured > 0)
    text += row("shared atomic wavefronts", m.atom_wavefronts);
  if (!std::isnan(m.bank_conflicts.measured)) text += row("bank conflicts (the L1's extra)", m.bank_conflicts);
  if (!std::isnan(m.bytes.measured))
    text += fmt::format("  {:<34} {:>16.3g} {:>16.3g} {:>10}\n", "bytes: requested / from DRAM",
                        m.bytes.predicted, m.bytes.measured, ratio(m.bytes.predicted, m.bytes.measured));
  if (!std::isnan(m.occupancy_pct.measured)) text += row("occupancy: theoretical / achieved", m.occupancy_pct, true);
  std::vector<std::string> stalls;
  for (const auto& [name, cycles] : m.top_stalls)
    stalls.push_back(fmt::format("{} {:.2f}", name, cycles));
  if (!stalls.empty())
    text += wrap("  ", fmt::format("top stalls (warps stalled per issue): {}", fmt::join(stalls, ", ")), 4);
  text += wrap("  ",
               "measured: loads as the L1 counts them (ldmatrix included), except where wgmma reads "
               "shared memory beside them; stores, atomics, and those loads, as each instruction's "
               "addresses need them (Nsight Compute's count per instruction). The L1 counts more wavefronts "
               "than the addresses need where other traffic shares the banks (global loads through "
               "the L1, TMA copies, wgmma's operand reads), and reports them as bank conflicts",
               4);
  text += wrap("  ",
               fmt::format("within the model's tolerance (loads, stores, atomics and modelled cp.async "
                           "writes within {:.0f}% of the measurement): {}",
                           100 * kWavefrontTolerance, m.within_tolerance ? "yes" : "NO"),
               4);
  return text;
}

// ---- JSON ----

nlohmann::json timing_json(const std::optional<StepTiming>& t) {
  if (!t) return nullptr;
  return {{"variant", t->variant},
          {"median_ms", t->median_ms},
          {"vs_reference", t->vs_reference},
          {"verified", t->verified}};
}

nlohmann::json step_json(const Step& s) {
  nlohmann::json doc{{"number", s.number},
                     {"file", s.file},
                     {"summary", s.summary},
                     {"changed", s.changed},
                     {"should_buy", s.should_buy}};
  doc["previous"] = s.previous ? nlohmann::json{{"variant", s.previous->id()},
                                                {"number", s.previous_number},
                                                {"description", s.previous->description}}
                               : nlohmann::json();
  if (!s.results) {
    doc["results"] = nullptr;
    doc["why_no_results"] = s.why_no_results;
    return doc;
  }
  const StepResults& r = *s.results;
  doc["results"] = {
      {"source", r.measured_here ? "measured" : "committed"},
      {"gpu", r.gpu},
      {"file", r.measured_here ? nlohmann::json() : nlohmann::json(r.file)},
      {"reps", r.reps},
      {"size", r.size},
      {"type", r.type},
      {"reference", r.reference},
      {"step", timing_json(r.step)},
      {"previous", timing_json(r.previous)},
      {"speedup_over_previous", r.previous && r.step
                                    ? nlohmann::json(r.previous->median_ms / r.step->median_ms)
                                    : nlohmann::json()}};
  return doc;
}

nlohmann::json model_json(const ModelExplanation& m) {
  const Occupancy& o = m.occupancy;
  nlohmann::json occupancy{
      {"blocks_per_sm", o.blocks},
      {"bound_by", o.bound_by},
      {"by_registers", o.by_registers ? nlohmann::json(*o.by_registers) : nlohmann::json()},
      {"by_shared_memory", o.by_smem},
      {"by_threads", o.by_threads},
      {"by_block_limit", o.by_blocks},
      {"compute_capability", fmt::format("{}.{}", o.arch.cc_major, o.arch.cc_minor)},
      {"limits",
       {{"shared_memory_per_sm", o.arch.smem_per_sm},
        {"shared_memory_reserved_per_block", o.arch.smem_reserved_per_block},
        {"registers_per_sm", o.arch.registers_per_sm},
        {"threads_per_sm", o.arch.max_threads_per_sm},
        {"blocks_per_sm", o.arch.max_blocks_per_sm}}}};
  if (m.compiled)
    occupancy["compiled"] = {{"kernel", m.kernel},
                             {"arch", m.compiled->arch},
                             {"registers", m.compiled->registers},
                             {"static_smem", m.compiled->static_smem},
                             {"stack_bytes", m.compiled->stack_bytes},
                             {"spill_bytes", m.compiled->spill_bytes}};
  nlohmann::json accesses = nlohmann::json::array();
  for (const AccessLine& a : m.accesses)
    accesses.push_back({{"what", a.what},
                        {"op", a.op},
                        {"instruction", a.instruction},
                        {"expression", a.expression},
                        {"block", a.block},
                        {"width", a.width},
                        {"per_block", a.per_block},
                        {"per_launch", a.per_launch},
                        {"wavefronts_per_warp", a.wavefronts_per_warp},
                        {"ideal_per_warp", a.ideal_per_warp},
                        {"total_wavefronts", a.total_wavefronts}});
  const Prediction& p = m.predicted;
  return {{"kernel", m.kernel},
          {"other_kernels", m.other_kernels},
          {"block", m.block},
          {"occupancy", occupancy},
          {"smem_bytes", m.smem_bytes},
          {"dynamic_smem", m.dynamic_smem},
          {"blocks", m.blocks},
          {"per_tile", m.per_tile},
          {"accesses", accesses},
          {"predicted",
           {{"ld_wavefronts", p.ld_wavefronts},
            {"ld_ideal", p.ld_ideal},
            {"st_wavefronts", p.st_wavefronts},
            {"st_ideal", p.st_ideal},
            {"cp_wavefronts", p.cp_wavefronts},
            {"cp_ideal", p.cp_ideal},
            {"atom_wavefronts", p.atom_wavefronts},
            {"atom_ideal", p.atom_ideal}}},
          {"global_bytes", m.global_bytes},
          {"flops", m.flops},
          {"traffic", m.traffic},
          {"notes", m.notes}};
}

// NaN (not measured) as null.
nlohmann::json json_number(double x) { return std::isnan(x) ? nlohmann::json() : nlohmann::json(x); }

nlohmann::json compared_json(const Compared& c, const char* predicted, const char* measured) {
  return {{predicted, c.predicted}, {measured, json_number(c.measured)}};
}

nlohmann::json wavefronts_json(const Compared& c, double l1) {
  return {{"predicted", c.predicted}, {"measured", json_number(c.measured)}, {"l1", json_number(l1)}};
}

nlohmann::json measured_json(const MeasuredExplanation& m) {
  nlohmann::json stalls = nlohmann::json::object();
  for (const auto& [name, cycles] : m.top_stalls) stalls[name] = cycles;
  return {{"kernel", m.kernel},
          {"grid_blocks", m.grid_blocks},
          {"model_scale", m.model_scale},
          {"ld_wavefronts", wavefronts_json(m.ld_wavefronts, m.l1_ld_wavefronts)},
          {"st_wavefronts", wavefronts_json(m.st_wavefronts, m.l1_st_wavefronts)},
          {"cp_wavefronts", compared_json(m.cp_wavefronts, "predicted", "measured")},
          {"atom_wavefronts", compared_json(m.atom_wavefronts, "predicted", "measured")},
          {"bank_conflicts", compared_json(m.bank_conflicts, "predicted", "measured")},
          {"bytes", compared_json(m.bytes, "requested", "dram")},
          {"occupancy_pct", compared_json(m.occupancy_pct, "theoretical", "achieved")},
          {"top_stalls", stalls},
          {"within_tolerance", m.within_tolerance}};
}

}  // namespace

const ArchLimits& arch_limits(int cc_major, int cc_minor) {
  for (const auto& a : kArchs)
    if (a.cc_major == cc_major && a.cc_minor == cc_minor) return a;
  throw UsageError(fmt::format("no occupancy limits for compute capability {}.{} (known: {})",
                               cc_major, cc_minor, known_archs()));
}

std::string known_archs() {
  std::vector<std::string> names;
  for (const auto& a : kArchs) names.push_back(fmt::format("{}.{}", a.cc_major, a.cc_minor));
  return fmt::format("{}", fmt::join(names, ", "));
}

Explanation explain(const VariantInfo& v, const Shape& shape, DType type, const ArchLimits& arch,
                    const Measurement* measured, const StepResults* timed) {
  Explanation e;
  e.variant = v.id();
  e.description = v.description;
  e.technique = v.technique;
  e.shared_memory = smem_kind_name(v.smem);
  e.size = shape.label();
  e.type = dtype_name(type);
  for (const Tutorial* t : v.tutorials) e.tutorials.emplace_back(t->title, t->original);
  if (v.launch_plan != nullptr) e.launches = v.launch_plan(shape, type);
  e.step = describe_step(v);
  if (e.step && timed != nullptr)
    e.step->results = *timed;
  else if (e.step)
    add_committed_results(*e.step, v, shape, type);
  if (v.model == nullptr) {
    e.why_no_model = v.why_no_model;
    return e;
  }
  e.model = model_explanation(v.model(shape, type), arch);
  if (measured != nullptr) e.measured = measured_explanation(*e.model, *measured);
  return e;
}

std::string render_text(const Explanation& e) {
  std::string text = wrap("", fmt::format("{}: {}", e.variant, e.description), kLabel);
  text += field("technique", e.technique);
  if (!e.tutorials.empty()) {
    std::vector<std::string> titles;
    for (const auto& t : e.tutorials) titles.push_back(fmt::format("“{}”", t.first));
    text += field("from", fmt::format("the tutorial{} {}", titles.size() > 1 ? "s" : "",
                                      fmt::join(titles, ", ")));
  }
  if (!e.launches.empty()) text += field("launches", fmt::format("{} at {}", e.launches, e.size));
  if (e.step) text += step_text(*e.step);
  if (!e.model)
    return text + field("shared memory", fmt::format("{}; {}", e.shared_memory, e.why_no_model));
  text += model_text(*e.model, e);
  if (e.measured) text += measured_text(*e.measured);
  return text;
}

std::string render_json(const Explanation& e) {
  nlohmann::json doc{{"variant", e.variant},     {"description", e.description},
                     {"technique", e.technique}, {"shared_memory", e.shared_memory},
                     {"size", e.size},           {"type", e.type}};
  if (!e.tutorials.empty()) {
    nlohmann::json from = nlohmann::json::array();
    for (const auto& [title, original] : e.tutorials)
      from.push_back({{"title", title}, {"original_title", original}});
    doc["tutorials"] = from;
  }
  if (!e.launches.empty()) doc["launches"] = e.launches;
  doc["step"] = e.step ? step_json(*e.step) : nlohmann::json();
  if (!e.model) {
    doc["model"] = nullptr;
    doc["why_no_model"] = e.why_no_model;
    return doc.dump(2) + "\n";
  }
  doc["model"] = model_json(*e.model);
  if (e.measured) doc["measured"] = measured_json(*e.measured);
  return doc.dump(2) + "\n";
}

}  // namespace smemlab::explain
