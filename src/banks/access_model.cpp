#include "smemlab/access_model.hpp"

#include <cmath>
#include <utility>

namespace smemlab {

CountedAccess counted_access(std::string what, std::string op, const std::string& expression,
                             banks::Block block, int width, double per_block) {
  // The instruction follows from op ("ld" or "st"), so the two cannot disagree.
  const banks::Instruction instruction = banks::parse_instruction(op);
  return {std::move(what), std::move(op),
          {banks::Expression::parse(expression), block, width, false, 0, instruction}, per_block};
}

CountedAccess counted_access(std::string what, const banks::Instruction& instruction, const std::string& expression,
                             banks::Block block, double per_block, int width) {
  const bool copy = instruction.op == banks::Op::cp_async_ca || instruction.op == banks::Op::cp_async_cg;
  return {std::move(what), copy ? "cp" : instruction.writes() ? "st" : "ld",
          {banks::Expression::parse(expression), block, width, false, 0, instruction}, per_block};
}

Prediction predict(const AccessModel& m) {
  Prediction p;
  for (const auto& a : m.accesses) {
    const banks::Analysis an = banks::analyze(a.access);
    const auto total = static_cast<long long>(std::llround(static_cast<double>(an.wavefronts()) * a.per_block * m.blocks));
    const auto ideal = static_cast<long long>(std::llround(static_cast<double>(an.ideal()) * a.per_block * m.blocks));
    (a.op == "ld" ? p.ld_wavefronts : a.op == "cp" ? p.cp_wavefronts : p.st_wavefronts) += total;
    (a.op == "ld" ? p.ld_ideal : a.op == "cp" ? p.cp_ideal : p.st_ideal) += ideal;
  }
  return p;
}

}  // namespace smemlab
