// Recursive-descent parser and evaluator for the access expressions, C precedence:
// unary + - ~  >  * / %  >  + -  >  << >>  >  &  >  ^  >  |
#include <fmt/format.h>

#include <cstdint>

#include <array>
#include <cctype>
#include <charconv>

#include "smemlab/banks.hpp"

namespace smemlab::banks {

struct Expression::Node {
  enum class Kind { constant, variable, unary, binary } kind;
  std::int64_t value = 0;  // constant
  int variable = 0;        // 0 tx, 1 ty, 2 tz
  std::string op;          // unary or binary operator
  std::shared_ptr<const Node> lhs;
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
  explicit Parser(std::string_view text) : text_(text) {}

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

  NodePtr parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expected a number, tx, ty, tz or '('");
    const char c = text_[pos_];
    if (c == '(') {
      const Nested nested(*this);
      ++pos_;
      NodePtr inner = parse_level(0);
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ')') fail("expected ')'");
      ++pos_;
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t value = 0;
      const auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
      if (ec == std::errc::result_out_of_range) fail("number too large");
      pos_ = static_cast<std::size_t>(end - text_.data());
      if (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_])))
        fail(fmt::format("unexpected '{}' in a number", printable(text_.substr(pos_, 1))));
      return std::make_shared<const Node>(Node{Node::Kind::constant, value, 0, {}, nullptr, nullptr});
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
      const std::string_view name = text_.substr(start, pos_ - start);
      for (int v = 0; v < 3; ++v)
        if (name == std::array<std::string_view, 3>{"tx", "ty", "tz"}[static_cast<std::size_t>(v)])
          return std::make_shared<const Node>(Node{Node::Kind::variable, 0, v, {}, nullptr, nullptr});
      pos_ = start;
      fail(fmt::format("unknown name '{}' (use tx, ty, tz)", name));
    }
    if (c == ')') fail("unexpected ')'");
    fail(fmt::format("unexpected '{}'", printable(text_.substr(pos_, 1))));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
};

// A result that does not fit in 64 bits is an error, never a silently wrapped address.
[[noreturn]] void overflow(std::int64_t a, std::string_view op, std::int64_t b) {
  throw UsageError(fmt::format("expression overflows 64-bit arithmetic: {} {} {}", a, op, b));
}

std::int64_t eval_node(const Node& n, const std::array<std::int64_t, 3>& vars) {
  switch (n.kind) {
    case Node::Kind::constant: return n.value;
    case Node::Kind::variable: return vars[static_cast<std::size_t>(n.variable)];
    case Node::Kind::unary: {
      const std::int64_t v = eval_node(*n.lhs, vars);
      if (n.op == "-" && v == INT64_MIN) overflow(0, "-", v);
      return n.op == "-" ? -v : n.op == "~" ? ~v : v;
    }
    case Node::Kind::binary: break;
  }
  const std::int64_t a = eval_node(*n.lhs, vars);
  const std::int64_t b = eval_node(*n.rhs, vars);
  if ((n.op == "/" || n.op == "%") && b == 0) throw UsageError("expression divides by zero");
  if ((n.op == "<<" || n.op == ">>") && (b < 0 || b > 62)) throw UsageError("shift count out of range 0..62");
  std::int64_t out = 0;
  const auto checked = [&](bool overflowed) {
    if (overflowed) overflow(a, n.op, b);
    return out;
  };
  if (n.op == "+") return checked(__builtin_add_overflow(a, b, &out));
  if (n.op == "-") return checked(__builtin_sub_overflow(a, b, &out));
  if (n.op == "*") return checked(__builtin_mul_overflow(a, b, &out));
  if ((n.op == "/" || n.op == "%") && a == INT64_MIN && b == -1) overflow(a, n.op, b);
  if (n.op == "/") return a / b;
  if (n.op == "%") return a % b;
  if (n.op == "<<") {
    out = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << b);
    return checked((out >> b) != a);
  }
  if (n.op == ">>") return a >> b;
  if (n.op == "&") return a & b;
  if (n.op == "^") return a ^ b;
  return a | b;
}

}  // namespace

Expression Expression::parse(std::string_view text) {
  Expression e;
  e.text_ = std::string(text);
  e.root_ = Parser(e.text_).parse();
  return e;
}

std::int64_t Expression::eval(std::int64_t tx, std::int64_t ty, std::int64_t tz) const {
  return eval_node(*root_, {tx, ty, tz});
}

}  // namespace smemlab::banks
