// The bank analyzer: its expression language, its rules on textbook patterns, and, the part
// that grounds it, every row of the table measured on real hardware with Nsight Compute.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "smemlab/banks.hpp"
#include "support/run_cli.hpp"

using namespace smemlab;
using banks::Access;
using banks::Expression;

namespace {

std::int64_t eval(const char* text, int tx = 0, int ty = 0, int tz = 0) {
  return Expression::parse(text).eval(tx, ty, tz);
}

long long wavefronts(const char* expr, banks::Block block = {}, int width = 4, bool bytes = false) {
  return banks::analyze({Expression::parse(expr), block, width, bytes, 0}).wavefronts();
}

}  // namespace

TEST(BankExpression, FollowsCPrecedence) {
  EXPECT_EQ(eval("1+2*3"), 7);
  EXPECT_EQ(eval("(1+2)*3"), 9);
  EXPECT_EQ(eval("1 << 2 + 1"), 8);  // + binds tighter than <<
  EXPECT_EQ(eval("6 & 3 ^ 1 | 8"), 11);  // & then ^ then |
  EXPECT_EQ(eval("-tx + ~0", 5), -6);
  EXPECT_EQ(eval("tx*32 + ty", 3, 7), 103);
  EXPECT_EQ(eval("tz % 4 * 10 / 3", 0, 0, 7), 10);
  EXPECT_EQ(eval("-7 / 2"), -3);  // truncation, as in C
  EXPECT_EQ(eval("tx ^ ty", 5, 3), 6);
  EXPECT_EQ(eval("0x1F & 0X20 | 017"), 15);  // constants as C reads them: hexadecimal, octal
  EXPECT_EQ(eval("0"), 0);
}

TEST(BankExpression, ErrorsPointAtTheMistake) {
  const auto column_of = [](const char* text) {
    try {
      (void)Expression::parse(text);
    } catch (const banks::ExpressionError& e) {
      return e.column();
    }
    return std::size_t{0};
  };
  EXPECT_EQ(column_of("tx*32+"), 7U);
  EXPECT_EQ(column_of("tx * tk"), 6U);
  EXPECT_EQ(column_of("(tx + 1"), 8U);
  EXPECT_EQ(column_of("tx 3"), 4U);
  EXPECT_EQ(column_of("tx @ 2"), 4U);
  EXPECT_EQ(column_of(""), 1U);
  EXPECT_EQ(column_of("tx && 1"), 4U);
  EXPECT_EQ(column_of("tx + 09"), 7U);   // not an octal digit
  EXPECT_EQ(column_of("tx + 0x"), 8U);   // no hexadecimal digits
  EXPECT_EQ(column_of("tx + 0xg"), 8U);
  EXPECT_THROW((void)eval("tx / 0"), UsageError);
  EXPECT_EQ(column_of("tx + 4294967296"), 6U);  // too large for a 32-bit int
}

// rand(k): a value uniform in 0..k-1 for each thread, each rand() of the expression and each
// draw, the same on every run.
TEST(BankExpression, RandDrawsPerThreadAndDraw) {
  const Expression e = Expression::parse("rand(256)");
  EXPECT_TRUE(e.random());
  EXPECT_FALSE(Expression::parse("tx*33").random());
  std::map<std::int64_t, int> seen;
  for (int tx = 0; tx < 4096; ++tx) {
    const std::int64_t v = e.eval(tx, 0, 0);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 256);
    ++seen[v];
    EXPECT_EQ(v, e.eval(tx, 0, 0));  // a draw is fixed
  }
  EXPECT_EQ(seen.size(), 256U);  // 4,096 draws cover every value
  int differ = 0;
  for (int tx = 0; tx < 64; ++tx) differ += e.eval(tx, 0, 0, nullptr, 0) != e.eval(tx, 0, 0, nullptr, 1);
  EXPECT_GT(differ, 48);  // another draw, other values (1 in 256 agree by chance)
  const Expression two = Expression::parse("rand(1 << 20) - rand(1 << 20)");
  int zero = 0;
  for (int tx = 0; tx < 64; ++tx) zero += two.eval(tx, 0, 0) == 0;
  EXPECT_LT(zero, 2);  // the two rand() draw apart
  EXPECT_THROW((void)Expression::parse("rand 4"), banks::ExpressionError);
  EXPECT_THROW((void)Expression::parse("rand(4"), banks::ExpressionError);
  EXPECT_THROW((void)eval("rand(0)"), UsageError);
}

// Atomics as measured with a histogram's increments on an H100 (the rules at the top of
// src/banks/analyzer.cpp): atom serves lanes on one word together, atom.cluster each lane apart.
TEST(BankAnalyzer, Atomics) {
  const auto analyzed = [](const char* expr, const char* instruction) {
    return banks::expected(
        {Expression::parse(expr), {32, 1, 1}, 4, false, 0, banks::parse_instruction(instruction)});
  };
  EXPECT_EQ(analyzed("0", "atom").wavefronts, 1);
  EXPECT_EQ(analyzed("0", "atom.cluster").wavefronts, 32);
  EXPECT_EQ(analyzed("tx", "atom.cluster").wavefronts, 1);
  // One copy of the bins a lane, lane l's words in bank l: one wavefront whatever the data.
  EXPECT_DOUBLE_EQ(analyzed("32*rand(256) + (tx & 31)", "atom").wavefronts, 1.0);
  // Random bins of 256: measured 3.15 (atom) and 3.53 (atom.cluster) a warp.
  EXPECT_NEAR(analyzed("rand(256)", "atom").wavefronts, 3.15, 0.05);
  EXPECT_NEAR(analyzed("rand(256)", "atom.cluster").wavefronts, 3.53, 0.05);
  EXPECT_THROW((void)banks::analyze({Expression::parse("tx"), {}, 8, false, 0, banks::parse_instruction("atom")}),
               UsageError);
  // The tool shows one draw and the mean over all of them.
  const auto cli = smemlab::testing::run_cli({"banks", "rand(256)", "--instruction", "atom", "--format", "json"});
  ASSERT_EQ(cli.status, 0) << cli.err;
  const auto doc = nlohmann::json::parse(cli.out);
  EXPECT_EQ(doc["expected"]["draws"], banks::kDraws);
  EXPECT_NEAR(doc["expected"]["wavefronts"].get<double>(), 3.15, 0.05);
  const auto text = smemlab::testing::run_cli({"banks", "rand(256)", "--instruction", "atom.cluster"});
  EXPECT_NE(text.out.find(fmt::format("over {} draws the block averages 3.5", banks::kDraws)), std::string::npos)
      << text.out;
}

// The expression's type is int (or long long with 64 bits), computed as the GPU computes it:
// where C leaves a result undefined, the hardware's result, with a warning of that kind.
TEST(BankExpression, ComputesAsTheGpuDoesForTheType) {
  const auto with_warnings = [](const char* text, int bits, std::int64_t tx = 0) {
    std::vector<banks::ArithmeticWarning> warnings;
    const std::int64_t value = Expression::parse(text, bits).eval(tx, 0, 0, &warnings);
    std::string kinds;
    for (const auto& w : warnings) kinds += (kinds.empty() ? "" : ",") + w.kind;
    return std::pair{value, kinds};
  };
  using Result = std::pair<std::int64_t, std::string>;
  EXPECT_EQ(with_warnings("1 << 30", 32), Result(1 << 30, ""));
  EXPECT_EQ(with_warnings("1 << 31", 32), Result(INT32_MIN, "overflow"));  // the low bits, and a warning
  EXPECT_EQ(with_warnings("1 << 32", 32), Result(0, "shift count"));  // shl clamps the count: 0
  EXPECT_EQ(with_warnings("1 << tx", 32, 40), Result(0, "shift count"));
  EXPECT_EQ(with_warnings("-8 >> 40", 32), Result(-1, "shift count"));  // shr fills with the sign
  EXPECT_EQ(with_warnings("8 >> -1", 32), Result(0, "shift count"));    // the count read as unsigned
  EXPECT_EQ(with_warnings("2147483647 + 1", 32), Result(INT32_MIN, "overflow"));
  EXPECT_EQ(with_warnings("-(-2147483647 - 1)", 32), Result(INT32_MIN, "overflow"));
  EXPECT_EQ(with_warnings("65536 * 65536 + (1 << 40)", 32), Result(0, "overflow,shift count"));
  EXPECT_EQ(with_warnings("1 << 40", 64), Result(std::int64_t{1} << 40, ""));
  EXPECT_EQ(with_warnings("1 << 64", 64), Result(0, "shift count"));
  // The count's low 32 bits, as PTX takes it: 2^32 + 1 shifts by 1.
  EXPECT_EQ(with_warnings("1 << 4294967297", 64), Result(2, "shift count"));
  EXPECT_EQ(with_warnings("-1 >> 4294967296", 64), Result(-1, "shift count"));
  EXPECT_EQ(with_warnings("9223372036854775807 + 1", 64), Result(INT64_MIN, "overflow"));
  EXPECT_EQ(with_warnings("4294967296", 64), Result(std::int64_t{1} << 32, ""));
  EXPECT_THROW((void)eval("(-2147483647 - 1) / -1"), UsageError);  // the GPU's result is unspecified
  EXPECT_THROW((void)Expression::parse("tx", 16), UsageError);
  // The conflict-free offset of GPU Gems 3 as printed, ((n) >> NUM_BANKS + (n) >> (2 *
  // LOG_NUM_BANKS)), parses as (n >> (NUM_BANKS + n)) >> 8: a count of at least 16 for every
  // n, so the offset is 0 for every index, the shifts past 31 clamped to it.
  for (const int num_banks : {16, 32})
    for (std::int64_t n = 0; n < 4096; ++n)
      ASSERT_EQ(eval(fmt::format("(tx) >> {} + (tx) >> (2 * {})", num_banks, num_banks == 16 ? 4 : 5).c_str(), n), 0)
          << n;
  EXPECT_EQ(eval("(tx >> 4) + (tx >> 8)", 300), 18 + 1);  // what was meant: an offset that grows
}

TEST(BankAnalyzer, TextbookPatterns) {
  EXPECT_EQ(wavefronts("tx"), 1);
  EXPECT_EQ(wavefronts("tx*2"), 2);
  EXPECT_EQ(wavefronts("tx*32"), 32);
  EXPECT_EQ(wavefronts("tx*33"), 1);
  EXPECT_EQ(wavefronts("0"), 1);  // broadcast
  // the column read of the tutorial “Shared Memory”
  EXPECT_EQ(wavefronts("tx*32+ty", {32, 32, 1}), 32 * 32);
  EXPECT_EQ(wavefronts("tx*33+ty", {32, 32, 1}), 32);       // padded
  EXPECT_EQ(wavefronts("tx*32+(ty^tx)", {32, 32, 1}), 32);  // swizzled
  EXPECT_EQ(wavefronts("tx", {}, 16), 4);                   // 512 bytes: four wavefronts
  EXPECT_EQ(wavefronts("tx*128", {}, 1, true), 32);         // bytes 128 apart: one bank
  EXPECT_EQ(wavefronts("tx*2", {48, 1, 1}), 2 + 1);         // a partial second warp: 16 lanes, 1
}

TEST(BankAnalyzer, ReportsCollisionsAndRejectsBadAddresses) {
  const auto a = banks::analyze({Expression::parse("tx*16"), {16, 16, 1}, 4, false, 0});
  ASSERT_EQ(a.warps.size(), 8U);
  EXPECT_EQ(a.warps[0].wavefronts, 8);
  EXPECT_EQ(a.warps[0].ways, 8);
  ASSERT_EQ(a.warps[0].collisions.size(), 2U);  // banks 0 and 16
  EXPECT_EQ(a.warps[0].collisions[0].bank, 0);
  EXPECT_EQ(a.warps[0].collisions[0].words.size(), 8U);
  EXPECT_THROW((void)banks::analyze({Expression::parse("tx*2+1"), {}, 4, true, 0}), UsageError);  // misaligned
  EXPECT_THROW((void)banks::analyze({Expression::parse("tx-1"), {}, 4, false, 0}), UsageError);   // negative
  EXPECT_THROW((void)banks::analyze({Expression::parse("tx"), {}, 3, false, 0}), UsageError);     // width
  EXPECT_THROW((void)banks::analyze({Expression::parse("tx"), {2048, 1, 1}, 4, false, 0}), UsageError);
}

// Every pattern measured with Nsight Compute on an H200 (scripts/bank-table.sh): the analyzer
// must predict the wavefronts exactly, and one instruction per warp.
TEST(BankAnalyzer, ReproducesEveryMeasuredPattern) {
  std::ifstream file(SMEMLAB_TEST_DATA_DIR "/bank_conflicts_h200.csv");
  ASSERT_TRUE(file) << "missing tests/data/bank_conflicts_h200.csv";
  std::string line;
  std::size_t rows = 0;
  std::map<std::string, int> instructions_seen;  // "ld", "ldmatrix", "cp.async", ...
  int swizzles_seen = 0;                        // rows measured on tiles with TMA's swizzle
  while (std::getline(file, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("name,", 0) == 0) continue;
    // name,op,"expression",block,width,bytes,instructions,wavefronts[,swizzle] (the expression may
    // hold commas)
    const auto q0 = line.find(',');
    const auto q1 = line.find(',', q0 + 1);
    const std::string op = line.substr(q0 + 1, q1 - q0 - 1);
    std::string rest;
    std::string expression;
    if (line[q1 + 1] == '"') {
      const auto q2 = line.find('"', q1 + 2);
      expression = line.substr(q1 + 2, q2 - q1 - 2);
      rest = line.substr(q2 + 2);
    } else {
      const auto q2 = line.find(',', q1 + 1);
      expression = line.substr(q1 + 1, q2 - q1 - 1);
      rest = line.substr(q2 + 1);
    }
    std::stringstream fields(rest);
    std::string block;
    std::string width;
    std::string bytes;
    std::string instructions;
    std::string measured;
    std::getline(fields, block, ',');
    std::getline(fields, width, ',');
    std::getline(fields, bytes, ',');
    std::getline(fields, instructions, ',');
    std::getline(fields, measured, ',');
    std::string swizzle = "0";
    std::getline(fields, swizzle, ',');
    banks::Block b{};
    ASSERT_EQ(std::sscanf(block.c_str(), "%dx%dx%d", &b.x, &b.y, &b.z), 3) << line;
    const auto analysis = banks::analyze({Expression::parse(expression), b, std::stoi(width), bytes == "1", 0,
                                          banks::parse_instruction(op), std::stoi(swizzle)});
    swizzles_seen += swizzle != "0";
    EXPECT_EQ(analysis.wavefronts(), std::stoll(measured)) << line;
    EXPECT_EQ(static_cast<long long>(analysis.warps.size()), std::stoll(instructions)) << line;
    ++rows;
    ++instructions_seen[op.substr(0, op.find('.', 3))];
  }
  EXPECT_GE(rows, 40U);
  // The table covers the tensor-core instructions, not only plain loads and stores.
  for (const char* op : {"ld", "st", "ldmatrix", "stmatrix", "cp.async"}) EXPECT_GE(instructions_seen[op], 5) << op;
  EXPECT_GE(swizzles_seen, 5);  // every TMA swizzle mode, read by ldmatrix and written by stores
}

TEST(BankAnalyzer, TmaSwizzleModes) {
  // Chunk c of 128-byte row r moves to c ^ (r % 8); 64 bytes: c ^ ((r / 2) % 4) of its 128-byte
  // line; 32 bytes: c ^ ((r / 4) % 2).
  EXPECT_EQ(banks::swizzled(3 * 128 + 16, 128), 3 * 128 + 2 * 16);
  EXPECT_EQ(banks::swizzled(3 * 128 + 16 + 4, 128), 3 * 128 + 2 * 16 + 4);
  EXPECT_EQ(banks::swizzled(9 * 128, 128), 9 * 128 + 16);
  EXPECT_EQ(banks::swizzled(5 * 128 + 48, 64), 5 * 128 + 32);
  EXPECT_EQ(banks::swizzled(3 * 128 + 16, 32), 3 * 128);
  EXPECT_EQ(banks::swizzled(777, 0), 777);
  // A warpgroup's 8-byte accumulator writes (row 16 w + l / 4, columns 2 (l % 4) and the next):
  // into 128-byte rows, a half-warp's 4 rows on the same 8 banks (8 wavefronts a warp); with the
  // 128-byte swizzle rows r and r ^ 1 still share theirs (4); into 32-byte rows the 4 rows fill
  // the 32 banks (2, the fewest 256 bytes need).
  const auto epilogue = [](int row_elements, int swizzle) {
    return banks::analyze({Expression::parse(fmt::format("(((tx/32)%4)*16 + (tx%32)/4)*{} + tx%4", row_elements)),
                           {128, 1, 1}, 8, false, 0, banks::parse_instruction("st"), swizzle});
  };
  EXPECT_EQ(epilogue(16, 0).wavefronts(), 4 * 8);
  EXPECT_EQ(epilogue(16, 128).wavefronts(), 4 * 4);
  EXPECT_EQ(epilogue(4, 0).wavefronts(), 4 * 2);
  EXPECT_THROW(banks::validate({Expression::parse("tx"), {}, 4, false, 0, {}, 48}), UsageError);
  const auto cli = smemlab::testing::run_cli({"banks", "(tx%16)*4 + tx/16", "--instruction", "ldmatrix.x4", "--swizzle", "64"});
  EXPECT_EQ(cli.status, 0) << cli.err;
  EXPECT_NE(cli.out.find("64-byte swizzle"), std::string::npos) << cli.out;
  EXPECT_EQ(smemlab::testing::run_cli({"banks", "tx", "--swizzle", "16"}).status, 2);
}

TEST(BanksCli, TableJsonMapAndErrors) {
  using smemlab::testing::run_cli;
  const auto table = run_cli({"banks", "tx*32"});
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("32 wavefronts for 1 ideal"), std::string::npos) << table.out;
  const auto json = run_cli({"banks", "tx*2", "--block", "48", "--format", "json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["warps"].size(), 2U);
  EXPECT_EQ(doc["warps"][0]["wavefronts"], 2);
  EXPECT_EQ(doc["warps"][1]["lanes"], 16);
  EXPECT_EQ(doc["summary"]["wavefronts"], 3);
  const auto map = run_cli({"banks", "tx*16", "--block", "16,16", "--map"});
  EXPECT_NE(map.out.find("w7"), std::string::npos);  // eight wavefronts drawn
  for (const auto& args : {std::vector<std::string>{"banks", "tx*32+"},
                           std::vector<std::string>{"banks", "tx", "--width", "3"},
                           std::vector<std::string>{"banks", "tx", "--block", "1,2,3,4"},
                           std::vector<std::string>{"banks", "tx", "--format", "xml"},
                           std::vector<std::string>{"banks", "tx", "--map", "--warp", "5"},
                           std::vector<std::string>{"banks", "tx*2+1", "--bytes"},
                           std::vector<std::string>{"banks", "tx*4611686018427387904"},  // overflows
                           std::vector<std::string>{"banks", "tx*300000"},  // beyond 227 KiB
                           std::vector<std::string>{"banks", "-tx"},        // negative addresses
                           std::vector<std::string>{"banks", "tx", "--warp", "3"},  // --warp without --map
                           std::vector<std::string>{"banks", "tx", "--block", "32,,2"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args[1];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_NE(run_cli({"banks", "tx*32+"}).err.find("column 7"), std::string::npos);
  EXPECT_NE(run_cli({"banks", "tx*300000"}).err.find("227 KiB"), std::string::npos);
  EXPECT_NE(run_cli({"banks", "-tx"}).err.find("negative"), std::string::npos);  // parsed as an expression
  EXPECT_EQ(run_cli({"banks", "-tx+31"}).status, 0);
  // A shift count past the width is what the GPU computes (the count clamped), with a warning.
  const auto clamped = run_cli({"banks", "tx<<62"});
  EXPECT_EQ(clamped.status, 0);
  EXPECT_NE(clamped.out.find("warning: '0 << 62': a shift count outside 0..31"), std::string::npos) << clamped.out;
  const auto wide = nlohmann::json::parse(run_cli({"banks", "(tx<<64)+tx", "--bits", "64", "--format", "json"}).out);
  EXPECT_EQ(wide["bits"], 64);
  ASSERT_EQ(wide["warnings"].size(), 1U);
  EXPECT_NE(wide["warnings"][0].get<std::string>().find("outside 0..63"), std::string::npos);
  EXPECT_EQ(run_cli({"banks", "tx", "--bits", "16"}).status, 2);
}

// Every wavefront past the ideal has its reason, per phase, in the table and the JSON.
TEST(BanksCli, TensorCoreInstructions) {
  using smemlab::testing::run_cli;
  // ldmatrix: 16-byte rows without --width; the same rows for both matrices of an .x2 still take
  // two wavefronts, named as matrices served apart.
  const auto x2 = run_cli({"banks", "tx%8", "--instruction", "ldmatrix.x2", "--format", "json"});
  ASSERT_EQ(x2.status, 0) << x2.err;
  const auto doc = nlohmann::json::parse(x2.out);
  EXPECT_EQ(doc["instruction"], "ldmatrix.x2");
  EXPECT_EQ(doc["width"], 16);
  EXPECT_EQ(doc["summary"]["wavefronts"], 2);
  EXPECT_EQ(doc["warps"][0]["lanes"], 16);  // only lanes 0-15 give addresses
  EXPECT_EQ(doc["warps"][0]["phases"][1]["split"], "ldmatrix and stmatrix serve one 8x8 matrix at a time");
  // cp.async.cg: pieces 32 bytes apart are partial sectors, not bank conflicts.
  const auto cg = run_cli({"banks", "tx*2", "--instruction", "cp.async.cg"});
  EXPECT_NE(cg.out.find("32 wavefronts for 4 ideal"), std::string::npos) << cg.out;
  EXPECT_NE(cg.out.find("each sector written in part on its own (32)"), std::string::npos) << cg.out;
  EXPECT_EQ(cg.out.find("bank conflict"), std::string::npos) << cg.out;
  // The same pattern through cp.async.ca is a 16-byte store: 2-way conflicts in each quarter.
  const auto ca = run_cli({"banks", "tx*2", "--instruction", "cp.async.ca", "--width", "16"});
  EXPECT_NE(ca.out.find("8 wavefronts for 4 ideal"), std::string::npos) << ca.out;
  // Bad combinations are usage errors, before any analysis.
  for (const std::vector<std::string> args : {std::vector<std::string>{"banks", "tx", "--instruction", "ldmatrix.x3"},
                                              {"banks", "tx", "--instruction", "ldmatrix.x4", "--width", "8"},
                                              {"banks", "tx", "--instruction", "cp.async.cg", "--width", "4"},
                                              {"banks", "tx", "--instruction", "stmatrix.x1", "--block", "48"}}) {
    const auto bad = run_cli(args);
    EXPECT_EQ(bad.status, 2) << args[3];
    EXPECT_NE(bad.err.find("--"), std::string::npos) << bad.err;
  }
}

TEST(BanksCli, ExtraWavefrontsAreExplained) {
  using smemlab::testing::run_cli;
  // One 16-byte word for all lanes: 2 wavefronts for 1 ideal, because the half-warps are
  // served apart, not because of a conflict.
  const auto broadcast = run_cli({"banks", "0", "--width", "16", "--bytes"});
  EXPECT_NE(broadcast.out.find("+1 split: 16-byte accesses serve each half-warp"), std::string::npos) << broadcast.out;
  EXPECT_EQ(broadcast.out.find("bank conflict"), std::string::npos) << broadcast.out;
  // 8-byte, stride 2: the conflicts are within each half-warp, named with the half's lanes.
  const auto halves = run_cli({"banks", "tx*2", "--width", "8", "--format", "json"});
  const auto doc = nlohmann::json::parse(halves.out);
  const auto& w = doc["warps"][0];
  ASSERT_EQ(w["phases"].size(), 2U);
  EXPECT_EQ(w["phases"][1]["first_lane"], 16);
  EXPECT_EQ(w["phases"][1]["split"], "together more than 128 distinct bytes");
  EXPECT_EQ(w["split_wavefronts"], 0);
  for (const auto& c : w["collisions"]) EXPECT_TRUE(c.contains("phase"));
  EXPECT_EQ(w["collisions"][0]["phase"], 0);
  EXPECT_EQ(w["collisions"].back()["phase"], 1);
  // A conflict-free 8-byte pair that would conflict merged: the reason is named.
  const auto merge = run_cli({"banks", "(tx/16)*128", "--width", "8", "--bytes"});
  EXPECT_NE(merge.out.find("half-warps together would conflict"), std::string::npos) << merge.out;
  // Identical warps are one row; warps alike but for their banks too.
  const auto same = run_cli({"banks", "tx*33", "--block", "32,32"});
  EXPECT_NE(same.out.find("   0-31     32"), std::string::npos) << same.out;
  const auto shifted = run_cli({"banks", "tx*32+ty", "--block", "32,32"});
  EXPECT_NE(shifted.out.find("0-31"), std::string::npos) << shifted.out;
  EXPECT_NE(shifted.out.find("the others in other banks"), std::string::npos) << shifted.out;
  // The map names why each phase is served apart.
  const auto drawn = run_cli({"banks", "0", "--width", "16", "--bytes", "--map"});
  EXPECT_NE(drawn.out.find("phase of lanes 16-31 (16-byte accesses), served apart: 16-byte accesses serve each half-warp"),
            std::string::npos)
      << drawn.out;
  // --map with --format json: the map is in the document.
  const auto map = nlohmann::json::parse(run_cli({"banks", "tx*2", "--width", "8", "--map", "--format", "json"}).out);
  EXPECT_EQ(map["map"]["phases"].size(), 2U);
  EXPECT_EQ(map["map"]["phases"][0]["wavefronts"].size(), 2U);
}

// The map's JSON names every lane of a broadcast, in the cell that serves the shared word.
TEST(BanksCli, MapMarksLanesSharingAWord) {
  using smemlab::testing::run_cli;
  const auto map_of = [](std::vector<std::string> args) {
    args.insert(args.end(), {"--map", "--format", "json"});
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out)["map"]["phases"];
  };
  // The column-first 16x16 tile: lanes 16-31 (ty = 1) read the words of lanes 0-15.
  const auto tile = map_of({"banks", "tx*16", "--block", "16,16"});
  ASSERT_EQ(tile.size(), 1U);
  EXPECT_EQ(tile[0]["lanes"], 32);
  const auto& shared = tile[0]["broadcasts"];
  ASSERT_EQ(shared.size(), 16U);
  EXPECT_EQ(shared[0], (nlohmann::json{{"wavefront", 0}, {"bank", 0}, {"lanes", {0, 16}}}));
  EXPECT_EQ(shared[3], (nlohmann::json{{"wavefront", 1}, {"bank", 16}, {"lanes", {3, 19}}}));
  for (const auto& b : shared) {
    const auto& row = tile[0]["wavefronts"][b["wavefront"].get<int>()];
    EXPECT_EQ(row[b["bank"].get<int>()], b["lanes"][0]);  // the map shows the first lane
  }
  // Lane pairs on one word each, no conflict; one word for the whole warp.
  const auto pairs = map_of({"banks", "tx/2"});
  ASSERT_EQ(pairs[0]["broadcasts"].size(), 16U);
  EXPECT_EQ(pairs[0]["broadcasts"][5],
            (nlohmann::json{{"wavefront", 0}, {"bank", 5}, {"lanes", {10, 11}}}));
  EXPECT_EQ(map_of({"banks", "0"})[0]["broadcasts"][0]["lanes"].size(), 32U);
  // An 8-byte word shared by two lanes is one broadcast in each of its two banks.
  const auto wide = map_of({"banks", "tx/2", "--width", "8"});
  ASSERT_EQ(wide.size(), 1U);  // the half-warps merge
  EXPECT_EQ(wide[0]["broadcasts"][1],
            (nlohmann::json{{"wavefront", 0}, {"bank", 1}, {"lanes", {0, 1}}}));
  // Every lane on its own word: no broadcast.
  EXPECT_TRUE(map_of({"banks", "tx"})[0]["broadcasts"].empty());
}

namespace {

// Splits a command line as a shell would for the guide's examples: spaces, single quotes.
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false;
  bool any = false;
  for (const char c : line) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  return words;
}

}  // namespace

// The guide states what the tool prints: every `$ smemlab ...` example's shown lines, and the
// wavefronts per warp of every command in its pattern table.
TEST(BanksGuide, AgreesWithTheTool) {
  using smemlab::testing::run_cli;
  std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/docs/guide/banks.md");
  ASSERT_TRUE(in);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::size_t examples = 0;
  std::size_t table_rows = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("$ smemlab ", 0) == 0) {
      auto args = shell_words(line.substr(2, line.find(" #") == std::string::npos ? std::string::npos : line.find(" #") - 2));
      args.erase(args.begin());  // "smemlab"
      const auto out = run_cli(args);
      ASSERT_EQ(out.status, 0) << line << ": " << out.err;
      std::istringstream printed(out.out);
      for (std::size_t j = i + 1; j < lines.size() && lines[j] != "```"; ++j) {
        std::string got;
        std::getline(printed, got);
        EXPECT_EQ(lines[j], got) << "in the example " << line;
      }
      ++examples;
    }
    // | what | `smemlab banks ...` | N ... |
    const auto start = line.find("| `smemlab banks ");
    if (start != std::string::npos) {
      const auto end = line.find("` |", start);
      auto args = shell_words(line.substr(start + 3, end - start - 3));
      args.erase(args.begin());
      args.insert(args.end(), {"--format", "json"});
      const auto doc = nlohmann::json::parse(run_cli(args).out);
      const double per_warp = doc["summary"]["wavefronts"].get<double>() / doc["summary"]["warps"].get<double>();
      EXPECT_EQ(per_warp, std::stod(line.substr(end + 3))) << line;
      ++table_rows;
    }
  }
  EXPECT_GE(examples, 2U);
  EXPECT_GE(table_rows, 5U);
}

// The guide's table of the scan's up-sweep: for each level (offset, threads), the wavefronts
// and ideal of the index unpadded, padded by the macro as printed, and as meant for 16 and for
// 32 banks.
TEST(BanksGuide, ScanOffsetTableAgreesWithTheTool) {
  std::ifstream in(std::string(SMEMLAB_SOURCE_DIR) + "/docs/guide/banks.md");
  ASSERT_TRUE(in);
  const auto padded = [](int offset, int column) {
    const std::string n = fmt::format("({}*(2*tx+1)-1)", offset);
    switch (column) {
      case 0: return n;
      case 1: return fmt::format("{0} + (({0}) >> 32 + ({0}) >> (2 * 5))", n);
      case 2: return fmt::format("{0} + (({0}) >> 4) + (({0}) >> (2 * 4))", n);
      default: return fmt::format("{0} + (({0}) >> 5) + (({0}) >> (2 * 5))", n);
    }
  };
  bool in_section = false;
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line.find("conflict-free offset") != std::string::npos;
    int offset = 0;
    int threads = 0;
    std::array<int, 8> cell{};
    if (!in_section || std::sscanf(line.c_str(), "| %d | %d | %d (%d) | %d (%d) | %d (%d) | %d (%d) |", &offset,
                                   &threads, &cell[0], &cell[1], &cell[2], &cell[3], &cell[4], &cell[5], &cell[6],
                                   &cell[7]) != 10)
      continue;
    for (int column = 0; column < 4; ++column) {
      const auto a = banks::analyze({Expression::parse(padded(offset, column)), {threads, 1, 1}, 4, false, 0});
      EXPECT_EQ(a.wavefronts(), cell[static_cast<std::size_t>(2 * column)]) << line << " column " << column;
      EXPECT_EQ(a.ideal(), cell[static_cast<std::size_t>(2 * column + 1)]) << line << " column " << column;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 9);
}
