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

Prediction predict(const AccessModel& m, bool per_launch_only) {
  Prediction p;
  for (const auto& a : m.accesses) {
    if (per_launch_only && !a.per_launch) continue;
    const banks::Expected counted = banks::expected(a.access);
    const double times = a.per_block * (a.per_launch ? 1.0 : m.blocks);
    const auto total = std::llround(counted.wavefronts * times);
    const auto ideal = std::llround(counted.ideal * times);
    const bool ld = a.op == "ld";
    const bool cp = a.op == "cp";
    const bool atom = a.op == "atom";
    (ld ? p.ld_wavefronts : cp ? p.cp_wavefronts : atom ? p.atom_wavefronts : p.st_wavefronts) += total;
    (ld ? p.ld_ideal : cp ? p.cp_ideal : atom ? p.atom_ideal : p.st_ideal) += ideal;
  }
  return p;
}

}  // namespace smemlab
