// The parsers of typed input (access expressions, sizes) against random and adversarial text,
// each for a fixed time: every input is either accepted or refused with a UsageError, never a
// crash, a hang or another exception; through the command line, a refusal is one line on stderr
// and exit status 2. The seed is printed, so that a failure can be replayed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "smemlab/banks.hpp"
#include "smemlab/error.hpp"
#include "smemlab/shape.hpp"
#include "support/run_cli.hpp"

namespace {

using namespace smemlab;
using Clock = std::chrono::steady_clock;

constexpr auto kTimePerParser = std::chrono::milliseconds(1500);

// Calls make_input(gen) until the time is up, feeding each input to check.
void for_a_while(const std::function<std::string(std::mt19937_64&)>& make_input,
                 const std::function<void(const std::string&)>& check) {
  const auto seed = std::random_device{}();
  std::mt19937_64 gen(seed);
  const auto end = Clock::now() + kTimePerParser;
  long long inputs = 0;
  while (Clock::now() < end) {
    const std::string input = make_input(gen);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", input " + std::to_string(inputs));
    check(input);
    if (::testing::Test::HasFailure()) return;
    ++inputs;
  }
  EXPECT_GE(inputs, 10) << "too few inputs in the time";  // a loaded machine runs fewer
}

// Random text from an alphabet of the grammar's pieces and of bytes it must refuse.
std::string random_text(std::mt19937_64& gen, const std::vector<std::string>& pieces, std::size_t max_pieces) {
  std::uniform_int_distribution<std::size_t> count(0, max_pieces);
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::string out;
  for (std::size_t i = count(gen); i > 0; --i) out += pieces[pick(gen)];
  return out;
}

const std::vector<std::string> kExpressionPieces{
    "tx", "ty", "tz", "tw", "0", "1", "7", "32", "4294967296", "9223372036854775807",
    "99999999999999999999", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~", "(", ")",
    " ", "&&", "||", "<", "x", std::string(1, '\0'), "\xc3\xa9", "\xff", "\t", "2^"};

// Parses and, when it parses, evaluates at a few thread indices: UsageError is the only way out.
void expression_survives(const std::string& text) {
  try {
    const banks::Expression e = banks::Expression::parse(text);
    for (const std::int64_t t : {0, 1, 31, 1023}) (void)e.eval(t, t / 2, t / 3);
  } catch (const UsageError&) {
  } catch (const std::exception& other) {
    ADD_FAILURE() << "'" << text.substr(0, 80) << "' threw " << other.what();
  }
}

TEST(Fuzz, ExpressionParserTakesRandomText) {
  for_a_while([](std::mt19937_64& gen) { return random_text(gen, kExpressionPieces, 40); },
              expression_survives);
}

TEST(Fuzz, ExpressionParserRefusesDeepNestingAndLongInput) {
  const auto refused = [](const std::string& text, const std::string& why) {
    try {
      (void)banks::Expression::parse(text);
      ADD_FAILURE() << why << ": accepted";
    } catch (const banks::ExpressionError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_LT(std::string(e.what()).size(), 200U) << "a short message";
    }
  };
  refused(std::string(5000, '(') + "tx" + std::string(5000, ')'), "characters");
  refused(std::string(1000, '(') + "tx" + std::string(1000, ')'), "nested");
  refused(std::string(50000, '-') + "tx", "characters");
  refused(std::string(1000, '-') + "tx", "nested");
  refused(std::string(1000, '~') + "1", "nested");
  const int deepest = banks::Expression::kMaxNesting;
  EXPECT_NO_THROW((void)banks::Expression::parse(std::string(deepest, '(') + "tx" + std::string(deepest, ')')));
  // A long flat chain stays within the length limit and evaluates.
  std::string chain = "tx";
  while (chain.size() + 3 < banks::Expression::kMaxLength) chain += "+tx";
  EXPECT_EQ(banks::Expression::parse(chain).eval(1, 0, 0), static_cast<std::int64_t>(chain.size() / 3 + 1));
}

TEST(Fuzz, ExpressionMessagesAreOnePrintableLine) {
  for (const std::string text : {std::string("tx+\0", 4), std::string("tx\xff"), std::string("\xc3\xa9+1"),
                                 std::string("tx+\x01")}) {
    try {
      (void)banks::Expression::parse(text);
      ADD_FAILURE() << "accepted";
    } catch (const banks::ExpressionError& e) {
      const std::string message = e.what();
      EXPECT_TRUE(std::all_of(message.begin(), message.end(),
                              [](char c) { return c >= 0x20 && c < 0x7f; }))
          << message;
    }
  }
}

const std::vector<std::string> kSizePieces{"1", "7", "2^", "62", "63", "64", "x", "0", "-", "+",
                                           "9223372036854775807", "18446744073709551616", " ",
                                           "2^62", "2^30", std::string(1, '\0'), "\xe2\x88\x9e", ","};

TEST(Fuzz, SizeParserTakesRandomText) {
  for_a_while([](std::mt19937_64& gen) { return random_text(gen, kSizePieces, 8); },
              [](const std::string& text) {
                try {
                  const Shape shape = parse_shape(text);
                  EXPECT_GE(shape.dims.size(), 1U);
                  EXPECT_LE(shape.dims.size(), 3U);
                  for (const auto d : shape.dims) EXPECT_GT(d, 0);
                } catch (const UsageError&) {
                } catch (const std::exception& other) {
                  ADD_FAILURE() << "'" << text << "' threw " << other.what();
                }
              });
}

// Through the command line, which adds each family's limits: `explain` is CPU work, so every
// size is either explained (status 0) or refused in one line (status 2).
TEST(Fuzz, ExplainSizesAreExplainedOrRefusedInOneLine) {
  const std::vector<std::string> variants{"reduction/single_pass", "transpose/tuned", "matmul/naive"};
  for_a_while(
      [](std::mt19937_64& gen) { return random_text(gen, kSizePieces, 6); },
      [&](const std::string& size) {
        for (const auto& variant : variants) {
          const auto r = smemlab::testing::run_cli({"explain", variant, "--size", size});
          if (r.status == 0) continue;
          EXPECT_EQ(r.status, 2) << variant << " --size '" << size << "': " << r.err;
          EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        }
      });
}

TEST(Fuzz, ExplainRefusesSizesWhoseBytesOverflow) {
  for (const std::string size : {"2^62", "2^61", "4611686018427387904"}) {
    const auto r = smemlab::testing::run_cli({"explain", "reduction/single_pass", "--size", size});
    EXPECT_EQ(r.status, 2) << size << ": " << r.out;
  }
  for (const std::string size : {"2^31x2^31", "2^30x2^30", "2^40"})
    EXPECT_EQ(smemlab::testing::run_cli({"explain", "transpose/tuned", "--size", size}).status, 2) << size;
  for (const std::string size : {"2^30x2^30x1", "1x2^30x2^30", "2^40"})
    EXPECT_EQ(smemlab::testing::run_cli({"explain", "matmul/naive", "--size", size}).status, 2) << size;
}

}  // namespace
