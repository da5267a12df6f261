// Recursive-descent parser and evaluator for the access expressions, C precedence:
// unary + - ~  >  * / %  >  + -  >  << >>  >  &  >  ^  >  |   (rand(k) is a primary, as tx is)
// Values are signed integers of the expression's width (32 or 64 bits), computed as the GPU
// computes them where C leaves the result undefined.
#include <fmt/format.h>

#include <cstdint>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "smemlab/banks.hpp"

namespace smemlab::banks {

struct Expression::Node {
  enum class Kind { constant, variable, unary, binary, random } kind;
  std::int64_t value = 0;  // constant
  int variable = 0;        // 0 tx, 1 ty, 2 tz; random: which rand() of the expression, from 0
  std::string op;          // unary or binary operator
  std::shared_ptr<const Node> lhs;  // random: the bound k of rand(k)
  std::shared_ptr<const Node> rhs;
};

namespace {

// Text as a terminal shows it: bytes outside printable ASCII written as \xNN.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte >= 0x20 && byte < 0x7f ? std::string(1, c) : fmt::format("\\x{:02x}", byte);
  }
  return out;
}

using NodePtr = std::shared_ptr<const Expression::Node>;
using Node = Expression::Node;

class Parser {
 public:
  Parser(std::string_view text, int bits) : text_(text), bits_(bits) {}

  NodePtr parse() {
    if (text_.size() > Expression::kMaxLength)
      throw ExpressionError(fmt::format("invalid expression: {} characters, more than the {} allowed",
                                        text_.size(), Expression::kMaxLength),
                            Expression::kMaxLength + 1);
    NodePtr root = parse_level(0);
    skip_space();
    if (pos_ < text_.size())
      fail(fmt::format("unexpected '{}' after a complete expression", printable(text_.substr(pos_, 1))));
    return root;
  }

  [[nodiscard]] bool random() const { return randoms_ > 0; }

 private:
  // Binary operators by level, loosest first.
  static constexpr std::array<std::array<std::string_view, 3>, 6> kLevels{{
      {"|", "", ""},
      {"^", "", ""},
      {"&", "", ""},
      {"<<", ">>", ""},
      {"+", "-", ""},
      {"*", "/", "%"},
  }};

  [[noreturn]] void fail(const std::string& why) const {
    // A long expression is quoted around the mistake, so that the message stays one short line.
    constexpr std::size_t kQuoted = 60;
    std::string quoted(text_);
    if (text_.size() > kQuoted) {
      const std::size_t from = pos_ > kQuoted / 2 ? pos_ - kQuoted / 2 : 0;
      quoted = (from > 0 ? "..." : "") + std::string(text_.substr(from, kQuoted)) +
               (from + kQuoted < text_.size() ? "..." : "");
    }
    throw ExpressionError(fmt::format("invalid expression '{}' at column {}: {}", printable(quoted), pos_ + 1, why),
                          pos_ + 1);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // The operator of this level at the cursor, if any (and not the start of a longer one).
  std::string_view match_operator(std::size_t level) {
    skip_space();
    for (const auto op : kLevels[level]) {
      if (op.empty() || text_.substr(pos_, op.size()) != op) continue;
      // '<' or '>' alone is no operator; '&&', '||' are not supported.
      if (op.size() == 1 && pos_ + 1 < text_.size() && (op == "&" || op == "|") && text_[pos_ + 1] == op[0])
        fail(fmt::format("'{}{}' is not supported (use {} for bitwise)", op, op, op));
      pos_ += op.size();
      return op;
    }
    return {};
  }

  NodePtr parse_level(std::size_t level) {
    if (level == kLevels.size()) return parse_unary();
    NodePtr lhs = parse_level(level + 1);
    while (true) {
      const std::string_view op = match_operator(level);
      if (op.empty()) return lhs;
      NodePtr rhs = parse_level(level + 1);
      lhs = std::make_shared<const Node>(Node{Node::Kind::binary, 0, 0, std::string(op), lhs, rhs});
    }
  }

  // Counts one level of nesting (a parenthesis or a unary operator) while it lives.
  class Nested {
   public:
    explicit Nested(Parser& parser) : parser_(parser) {
      if (++parser_.nesting_ > Expression::kMaxNesting)
        parser_.fail(fmt::format("nested more than {} deep", Expression::kMaxNesting));
    }
    ~Nested() { --parser_.nesting_; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& parser_;
  };

  NodePtr parse_unary() {
    skip_space();
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '~')) {
      const Nested nested(*this);
      const char op = text_[pos_++];
      NodePtr operand = parse_unary();
      return std::make_shared<const Node>(Node{Node::Kind::unary, 0, 0, std::string(1, op), operand, nullptr});
    }
    return parse_primary();
  }

  // '(' expression ')', the cursor at the '('.
  NodePtr parse_parenthesized() {
    const Nested nested(*this);
    ++pos_;
    NodePtr inner = parse_level(0);
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != ')') fail("expected ')'");
    ++pos_;
    return inner;
  }

  NodePtr parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a number, tx, ty, tz, rand(k) or '('");
    const char c = text_[pos_];
    if (c == '(') return parse_parenthesized();
    if (std::isdigit(static_cast<unsigned char>(c))) {
      // As C reads constants: 0x1f hexadecimal, 017 octal, 17 decimal.
      int base = 10;
      const char* first = text_.data() + pos_;
      if (c == '0' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == 'x' || text_[pos_ + 1] == 'X')) {
        base = 16;
        first += 2;
        if (pos_ + 2 >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_ + 2]))) {
          pos_ += 2;
          fail("expected hexadecimal digits after 0x");
        }
      } else if (c == '0') {
        base = 8;
      }
      std::int64_t value = 0;
      const auto [end, ec] = std::from_chars(first, text_.data() + text_.size(), value, base);
      if (ec == std::errc::result_out_of_range || (bits_ == 32 && value > INT32_MAX))
        fail(bits_ == 32 ? "number too large for a 32-bit int (--bits 64 computes in long long)" : "number too large");
      pos_ = static_cast<std::size_t>(end - text_.data());
      if (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_])))
        fail(base == 8 && std::isdigit(static_cast<unsigned char>(text_[pos_]))
                 ? fmt::format("'{}' in an octal number (a leading 0 makes one, as in C)", text_[pos_])
                 : fmt::format("unexpected '{}' in a number", printable(text_.substr(pos_, 1))));
      return std::make_shared<const Node>(Node{Node::Kind::constant, value, 0, {}, nullptr, nullptr});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      const std::string_view name = text_.substr(start, pos_ - start);
      for (int v = 0; v < 3; ++v)
        if (name == std::array<std::string_view, 3>{"tx", "ty", "tz"}[static_cast<std::size_t>(v)])
          return std::make_shared<const Node>(Node{Node::Kind::variable, 0, v, {}, nullptr, nullptr});
      if (name == "rand") {
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != '(') fail("expected '(' after rand: rand(k)");
        NodePtr bound = parse_parenthesized();
        return std::make_shared<const Node>(Node{Node::Kind::random, 0, randoms_++, {}, bound, nullptr});
      }
      pos_ = start;
      fail(fmt::format("unknown name '{}' (use tx, ty, tz, rand(k))", name));
    }
    if (c == ')') fail("unexpected ')'");
    fail(fmt::format("unexpected '{}'", printable(text_.substr(pos_, 1))));
  }

  std::string_view text_;
  int bits_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
  int randoms_ = 0;
};

// One evaluation: the width, and where to note what C leaves undefined.
struct Evaluation {
  int bits;
  std::vector<ArithmeticWarning>* warnings;
  std::uint64_t draw;

  [[nodiscard]] std::int64_t min() const { return bits == 32 ? INT32_MIN : INT64_MIN; }
  // x wrapped to the width, as two's-complement hardware keeps its low bits.
  [[nodiscard]] std::int64_t wrap(std::int64_t x) const {
    return bits == 32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(x))) : x;
  }
  // Notes the first warning of a kind; message() writes it out only then.
  template <class Message>
  void warn(std::string_view kind, Message&& message) const {
    if (warnings == nullptr) return;
    for (const auto& w : *warnings)
      if (w.kind == kind) return;
    warnings->push_back({std::string(kind), message()});
  }
  // `what` (a, op, b as written, or -a with an empty op) given its result's low 64 bits, and
  // whether those are all of it: the result in the width, with a warning where it does not fit.
  [[nodiscard]] std::int64_t wrapped(std::int64_t a, std::string_view op, std::int64_t b, std::int64_t low64,
                                     bool fits64) const {
    const std::int64_t out = wrap(low64);
    if (!fits64 || out != low64)
      warn("overflow", [&] {
        return fmt::format("'{}' does not fit in a {}-bit int, which C leaves undefined; where the GPU computes it, "
                           "it wraps it to {}",
                           op.empty() ? fmt::format("-({})", a) : fmt::format("{} {} {}", a, op, b), bits, out);
      });
    return out;
  }
};

// The operators, apart from the recursion of eval_node: their formatting of warnings and
// errors needs stack space that a deep expression must not pay for at every level.
[[gnu::noinline]] std::int64_t apply_unary(const Evaluation& e, std::string_view op, std::int64_t v) {
  if (op == "-") return e.wrapped(v, "", 0, v == INT64_MIN ? v : -v, v != INT64_MIN);
  return op == "~" ? ~v : v;
}

[[gnu::noinline]] std::int64_t apply_binary(const Evaluation& e, std::string_view op, std::int64_t a, std::int64_t b) {
  if ((op == "/" || op == "%") && b == 0) throw UsageError("expression divides by zero");
  if ((op == "/" || op == "%") && a == e.min() && b == -1)
    throw UsageError(fmt::format("expression overflows a {}-bit int: {} {} -1 (the GPU's result is unspecified)",
                                 e.bits, a, op));
  if (op == "+" || op == "-" || op == "*") {
    std::int64_t out = 0;  // the builtins keep the low 64 bits when the result does not fit
    const bool overflowed = op == "+"   ? __builtin_add_overflow(a, b, &out)
                            : op == "-" ? __builtin_sub_overflow(a, b, &out)
                                        : __builtin_mul_overflow(a, b, &out);
    return e.wrapped(a, op, b, out, !overflowed);
  }
  if (op == "/") return a / b;
  if (op == "%") return a % b;
  if (op == "<<" || op == ">>") {
    // PTX's shl and shr take the count's low 32 bits as unsigned and clamp it to the width.
    const auto count = std::min<std::uint64_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(b)),
                                               static_cast<std::uint64_t>(e.bits));
    const char* instruction = op == "<<" ? "shl" : "shr";
    if (b < 0 || b >= e.bits) {
      const std::int64_t out = count < static_cast<std::uint64_t>(e.bits)
                                   ? (op == "<<" ? e.wrap(static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << count))
                                                 : a >> count)
                                   : (op == "<<" ? 0 : (a < 0 ? -1 : 0));  // every bit shifted out
      e.warn("shift count", [&] {
        return fmt::format("'{} {} {}': a shift count outside 0..{}, which C leaves undefined; where the GPU shifts "
                           "at run time, its {} takes the count's low 32 bits, clamped to {}, giving {}",
                           a, op, b, e.bits - 1, instruction, e.bits, out);
      });
      return out;
    }
    if (op == ">>") return a >> b;  // a negative value fills with its sign
    // A left shift keeps the low bits; a signed result that does not fit is undefined in C.
    const std::int64_t out = e.wrap(static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << b));
    return e.wrapped(a, op, b, out, (out >> b) == a);
  }
  if (op == "&") return a & b;
  if (op == "^") return a ^ b;
  return a | b;
}

// SplitMix64's finalizer: consecutive inputs give unrelated outputs.
constexpr std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// rand(k) of this thread in this draw: uniform in 0..k-1.
[[gnu::noinline]] std::int64_t draw_random(const Evaluation& e, int which, std::int64_t bound,
                                           const std::array<std::int64_t, 3>& vars) {
  if (bound < 1) throw UsageError(fmt::format("rand({}): the bound must be at least 1", bound));
  std::uint64_t h = mix(e.draw);
  for (const std::int64_t v : {static_cast<std::int64_t>(which), vars[0], vars[1], vars[2]})
    h = mix(h ^ static_cast<std::uint64_t>(v));
  return static_cast<std::int64_t>(h % static_cast<std::uint64_t>(bound));
}

std::int64_t eval_node(const Node& n, const std::array<std::int64_t, 3>& vars, const Evaluation& e) {
  switch (n.kind) {
    case Node::Kind::constant: return n.value;
    case Node::Kind::variable: return e.wrap(vars[static_cast<std::size_t>(n.variable)]);
    case Node::Kind::unary: return apply_unary(e, n.op, eval_node(*n.lhs, vars, e));
    case Node::Kind::random: return draw_random(e, n.variable, eval_node(*n.lhs, vars, e), vars);
    case Node::Kind::binary: break;
  }
  const std::int64_t a = eval_node(*n.lhs, vars, e);
  return apply_binary(e, n.op, a, eval_node(*n.rhs, vars, e));
}

}  // namespace

Expression Expression::parse(std::string_view text, int bits) {
  if (bits != 32 && bits != 64) throw UsageError(fmt::format("--bits {}: 32 (int) or 64 (long long)", bits));
  Expression e;
  e.text_ = std::string(text);
  e.bits_ = bits;
  Parser parser(e.text_, bits);
  e.root_ = parser.parse();
  e.random_ = parser.random();
  return e;
}

std::int64_t Expression::eval(std::int64_t tx, std::int64_t ty, std::int64_t tz,
                              std::vector<ArithmeticWarning>* warnings, std::uint64_t draw) const {
  return eval_node(*root_, {tx, ty, tz}, Evaluation{bits_, warnings, draw});
}

}  // namespace smemlab::banks
