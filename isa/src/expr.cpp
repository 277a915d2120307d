// Algorithm: recursive-descent parse into a small tree, fold every subtree whose leaves are all
// constants, then emit the tree as a postfix program evaluated on a fixed-size stack.
#include "systole/isa/expr.h"

#include <algorithm>
#include <cctype>
#include <memory>

namespace systole::isa {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

/// Parentheses and unary minus nest at most this deep (the parser recurses on them).
constexpr int kMaxNesting = 64;

int64_t log2Ceil(int64_t a) {
  int64_t bits = 0;
  while (bits < 63 && (int64_t{1} << bits) < a) ++bits;  // every a > 2^62 needs 63
  return bits;
}

/// The unsigned width that holds every value in [0, a]: 1 for a <= 1.
int64_t bitsFor(int64_t a) {
  int64_t bits = 1;
  while (bits < 63 && (a >> bits) > 0) ++bits;
  return bits;
}

}  // namespace

class ExprParser {
 public:
  using Op = Expr::Op;

  ExprParser(std::string_view text, const NameResolver& resolve, const SourceLocation& where)
      : text_(text), resolve_(resolve), where_(where) {}

  Expr run() {
    auto root = parseExpr();
    skipSpace();
    if (pos_ != text_.size()) fail(pos_, "unexpected '" + std::string(1, text_[pos_]) + "' in expression");
    Expr out;
    out.text_ = std::string(text_);
    fold(*root);
    emit(*root, out.code_);
    if (stackDepth(out.code_) > Expr::kMaxStack) fail(0, "expression nests too deeply");
    return out;
  }

 private:
  struct Node {
    Op op;
    int64_t arg = 0;
    size_t pos = 0;
    std::vector<std::unique_ptr<Node>> kids;
  };
  using NodePtr = std::unique_ptr<Node>;

  [[noreturn]] void fail(size_t pos, const std::string& message) const {
    throw Error(where_.shifted(static_cast<int>(pos)), message);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  static NodePtr make(Op op, size_t pos, int64_t arg = 0) {
    auto n = std::make_unique<Node>();
    n->op = op;
    n->arg = arg;
    n->pos = pos;
    return n;
  }

  static NodePtr binary(Op op, NodePtr a, NodePtr b, size_t pos) {
    auto n = make(op, pos);
    n->kids.push_back(std::move(a));
    n->kids.push_back(std::move(b));
    return n;
  }

  NodePtr parseExpr() {
    auto lhs = parseTerm();
    for (;;) {
      skipSpace();
      size_t at = pos_;
      if (accept('+'))
        lhs = binary(Op::Add, std::move(lhs), parseTerm(), at);
      else if (accept('-'))
        lhs = binary(Op::Sub, std::move(lhs), parseTerm(), at);
      else
        return lhs;
    }
  }

  NodePtr parseTerm() {
    auto lhs = parseUnary();
    for (;;) {
      skipSpace();
      size_t at = pos_;
      if (accept('*'))
        lhs = binary(Op::Mul, std::move(lhs), parseUnary(), at);
      else if (accept('/'))
        lhs = binary(Op::Div, std::move(lhs), parseUnary(), at);
      else if (accept('%'))
        lhs = binary(Op::Mod, std::move(lhs), parseUnary(), at);
      else
        return lhs;
    }
  }

  /// Entered before each recursion on a nested construct; fails past kMaxNesting.
  struct Nest {
    ExprParser& p;
    Nest(ExprParser& parser, size_t at) : p(parser) {
      if (++p.depth_ > kMaxNesting)
        p.fail(at, "expression nests too deeply (more than " + std::to_string(kMaxNesting) + " levels)");
    }
    ~Nest() { --p.depth_; }
  };

  NodePtr parseUnary() {
    skipSpace();
    size_t at = pos_;
    if (accept('-')) {
      Nest nest(*this, at);
      auto n = make(Op::Neg, at);
      n->kids.push_back(parseUnary());
      return n;
    }
    return parsePrimary();
  }

  NodePtr parsePrimary() {
    skipSpace();
    size_t at = pos_;
    if (pos_ >= text_.size()) fail(pos_, "expected a number, a name or '(' but the expression ended");
    char c = text_[pos_];
    if (accept('(')) {
      Nest nest(*this, at);
      auto inner = parseExpr();
      if (!accept(')')) fail(pos_, "expected ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return parseNumber();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::string name = parseName();
      if (accept('(')) return parseCall(name, at);
      auto binding = resolve_(name);
      if (!binding) fail(at, "unknown name '" + name + "' in expression");
      if (binding->kind == NameBinding::Kind::Constant) return make(Op::Push, at, binding->value);
      return make(Op::Field, at, binding->field_index);
    }
    fail(at, "unexpected '" + std::string(1, c) + "' in expression");
  }

  NodePtr parseNumber() {
    size_t at = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (value > (INT64_MAX - 9) / 10) fail(at, "number too large");
      value = value * 10 + (text_[pos_++] - '0');
    }
    return make(Op::Push, at, value);
  }

  std::string parseName() {
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' || text_[pos_] == '.'))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  NodePtr parseCall(const std::string& name, size_t at) {
    struct Fn {
      const char* name;
      Op op;
      size_t arity;
    };
    static const Fn fns[] = {{"ceil_div", Op::CeilDiv, 2},
                             {"min", Op::Min, 2},
                             {"max", Op::Max, 2},
                             {"log2_ceil", Op::Log2Ceil, 1},
                             {"bits_for", Op::BitsFor, 1}};
    const Fn* fn = nullptr;
    for (const auto& f : fns)
      if (name == f.name) fn = &f;
    if (!fn) fail(at, "unknown function '" + name + "' (known: ceil_div, min, max, log2_ceil, bits_for)");
    auto n = make(fn->op, at);
    if (!accept(')')) {
      do n->kids.push_back(parseExpr());
      while (accept(','));
      if (!accept(')')) fail(pos_, "expected ',' or ')' in call of '" + name + "'");
    }
    if (n->kids.size() != fn->arity)
      fail(at,
           "'" + name + "' takes " + std::to_string(fn->arity) + " argument(s), got " + std::to_string(n->kids.size()));
    return n;
  }

  void fold(Node& n) {
    bool allConstant = !n.kids.empty();
    for (auto& k : n.kids) {
      fold(*k);
      allConstant = allConstant && k->op == Op::Push;
    }
    // A divisor that folds to zero fails for every field value: report it now, not at evaluation.
    if ((n.op == Op::Div || n.op == Op::Mod || n.op == Op::CeilDiv) && n.kids[1]->op == Op::Push && n.kids[1]->arg == 0)
      fail(n.pos, "division by zero");
    if (!allConstant) return;
    std::vector<int64_t> args;
    for (auto& k : n.kids) args.push_back(k->arg);
    int64_t value = apply(n.op, args.data(), n.pos);
    n.kids.clear();
    n.op = Op::Push;
    n.arg = value;
  }

  int64_t apply(Op op, const int64_t* a, size_t pos) const {
    if ((op == Op::Div || op == Op::Mod || op == Op::CeilDiv) && a[1] == 0) fail(pos, "division by zero");
    const auto v = Expr::applyOp(op, a);
    if (!v) fail(pos, "arithmetic overflow (the result is outside the 64-bit range)");
    return *v;
  }

  static int stackDepth(const std::vector<Expr::Step>& code) {
    int depth = 0, deepest = 0;
    for (const auto& s : code) {
      if (s.op == Op::Push || s.op == Op::Field)
        ++depth;
      else if (s.op != Op::Neg && s.op != Op::Log2Ceil && s.op != Op::BitsFor)
        --depth;
      deepest = std::max(deepest, depth);
    }
    return deepest;
  }

  static void emit(const Node& n, std::vector<Expr::Step>& code) {
    for (auto& k : n.kids) emit(*k, code);
    code.push_back({n.op, n.arg});
  }

  std::string_view text_;
  const NameResolver& resolve_;
  SourceLocation where_;
  size_t pos_ = 0;
  int depth_ = 0;
};

std::optional<int64_t> Expr::applyOp(Op op, const int64_t* a) {
  int64_t r = 0;
  // INT64_MIN / -1 and INT64_MIN % -1 trap on x86: the quotient overflows. Asked only by the
  // binary operators: a unary one's `a` has one element (reading a[1] overflowed the folder's
  // operand buffer; found by tests/fuzz/expr_fuzzer).
  const auto minOverMinusOne = [a] { return a[0] == INT64_MIN && a[1] == -1; };
  switch (op) {
    case Op::Neg: return a[0] == INT64_MIN ? std::nullopt : std::optional<int64_t>(-a[0]);
    case Op::Add: return __builtin_add_overflow(a[0], a[1], &r) ? std::nullopt : std::optional<int64_t>(r);
    case Op::Sub: return __builtin_sub_overflow(a[0], a[1], &r) ? std::nullopt : std::optional<int64_t>(r);
    case Op::Mul: return __builtin_mul_overflow(a[0], a[1], &r) ? std::nullopt : std::optional<int64_t>(r);
    case Op::Div: return minOverMinusOne() ? std::nullopt : std::optional<int64_t>(a[0] / a[1]);
    case Op::Mod: return minOverMinusOne() ? std::nullopt : std::optional<int64_t>(a[0] % a[1]);
    case Op::CeilDiv: return minOverMinusOne() ? std::nullopt : std::optional<int64_t>(ceilDiv(a[0], a[1]));
    case Op::Min: return a[0] < a[1] ? a[0] : a[1];
    case Op::Max: return a[0] > a[1] ? a[0] : a[1];
    case Op::Log2Ceil: return log2Ceil(a[0]);
    case Op::BitsFor: return bitsFor(a[0]);
    case Op::Push:
    case Op::Field: break;
  }
  return 0;
}

Expr Expr::compile(std::string_view text, const NameResolver& resolve, const SourceLocation& where) {
  return ExprParser(text, resolve, where).run();
}

int64_t Expr::checked(std::optional<int64_t> v) const {
  if (!v) throw Error("arithmetic overflow evaluating '" + text_ + "'");
  return *v;
}

int64_t Expr::eval(std::span<const int64_t> fields) const {
  int64_t stack[kMaxStack];
  int top = 0;
  for (const Step& s : code_) {
    switch (s.op) {
      case Op::Push: stack[top++] = s.arg; break;
      case Op::Field: stack[top++] = fields[static_cast<size_t>(s.arg)]; break;
      case Op::Neg:
      case Op::Log2Ceil:
      case Op::BitsFor: stack[top - 1] = checked(applyOp(s.op, &stack[top - 1])); break;
      default:
        --top;
        if ((s.op == Op::Div || s.op == Op::Mod || s.op == Op::CeilDiv) && stack[top] == 0)
          throw Error("division by zero evaluating '" + text_ + "'");
        stack[top - 1] = checked(applyOp(s.op, &stack[top - 1]));
    }
  }
  return top == 1 ? stack[0] : 0;
}

std::string Expr::render(const std::function<std::string(int)>& field, std::string_view function_prefix) const {
  static constexpr std::string_view kInfix[] = {"", "", "", " + ", " - ", " * ", " / ", " % "};
  static constexpr std::string_view kCalls[] = {"ceil_div", "min", "max", "log2_ceil", "bits_for"};
  std::vector<std::string> stack;
  for (const Step& s : code_) {
    const auto op = static_cast<size_t>(s.op);
    if (s.op == Op::Push) {
      stack.push_back(s.arg < 0 ? "(" + std::to_string(s.arg) + ")" : std::to_string(s.arg));
    } else if (s.op == Op::Field) {
      stack.push_back(field(static_cast<int>(s.arg)));
    } else if (s.op == Op::Neg) {
      stack.back() = "(-" + stack.back() + ")";
    } else if (s.op == Op::Log2Ceil || s.op == Op::BitsFor) {
      stack.back() = std::string(function_prefix) + std::string(kCalls[op - static_cast<size_t>(Op::CeilDiv)]) + "(" +
                     stack.back() + ")";
    } else {
      std::string b = std::move(stack.back());
      stack.pop_back();
      std::string& a = stack.back();
      if (op <= static_cast<size_t>(Op::Mod))
        a = "(" + a + std::string(kInfix[op]) + b + ")";
      else
        a = std::string(function_prefix) + std::string(kCalls[op - static_cast<size_t>(Op::CeilDiv)]) + "(" + a + ", " +
            b + ")";
    }
  }
  return stack.size() == 1 ? stack[0] : "0";
}

}  // namespace systole::isa
