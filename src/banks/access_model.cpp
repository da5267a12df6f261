#include "smemlab/access_model.hpp"

#include <cmath>
#include <utility>

namespace smemlab {

namespace {

// How the hardware counts the instruction's wavefronts.
std::string counted_as(const banks::Instruction& instruction) {
  if (instruction.op == banks::Op::cp_async_ca || instruction.op == banks::Op::cp_async_cg) return "cp";
  if (instruction.atomic()) return "atom";
  return instruction.writes() ? "st" : "ld";
}

}  // namespace

CountedAccess counted_access(std::string what, const std::string& op, const std::string& expression,
                             banks::Block block, int width, double per_block) {
  return counted_access(std::move(what), banks::parse_instruction(op), expression, block, per_block, width);
}

CountedAccess counted_access(std::string what, const banks::Instruction& instruction, const std::string& expression,
                             banks::Block block, double per_block, int width) {
  // The count follows from the instruction, so the two cannot disagree.
  return {std::move(what), counted_as(instruction),
          {banks::Expression::parse(expression), block, width, false, 0, instruction}, per_block};
}

AccessCount count_access(const CountedAccess& a, double blocks) {
  return {banks::expected(a.access), a.per_block * (a.per_launch ? 1.0 : blocks)};
}

Prediction predict(const AccessModel& m, bool per_launch_only) {
  std::vector<AccessCount> counts;
  for (const auto& a : m.accesses)
    counts.push_back(per_launch_only && !a.per_launch ? AccessCount{} : count_access(a, m.blocks));
  return predict(m, counts, per_launch_only);
}

Prediction predict(const AccessModel& m, std::span<const AccessCount> counts, bool per_launch_only) {
  Prediction p;
  for (std::size_t i = 0; i < m.accesses.size(); ++i) {
    const CountedAccess& a = m.accesses[i];
    if (per_launch_only && !a.per_launch) continue;
    const auto total = std::llround(counts[i].pattern.wavefronts * counts[i].runs);
    const auto ideal = std::llround(counts[i].pattern.ideal * counts[i].runs);
    const bool ld = a.op == "ld";
    const bool cp = a.op == "cp";
    const bool atom = a.op == "atom";
    (ld ? p.ld_wavefronts : cp ? p.cp_wavefronts : atom ? p.atom_wavefronts : p.st_wavefronts) += total;
    (ld ? p.ld_ideal : cp ? p.cp_ideal : atom ? p.atom_ideal : p.st_ideal) += ideal;
  }
  return p;
}

}  // namespace smemlab
