// Integer arithmetic expressions from the ISA YAML (timing models, operand limits).
//
// Grammar:   expr := term (('+'|'-') term)*      term := unary (('*'|'/'|'%') unary)*
//            unary := '-' unary | primary        primary := INT | NAME | NAME '(' args ')' | '(' expr ')'
// NAME is a dotted identifier (array.rows, dram.latency) or an instruction field (rows, m).
// Functions: ceil_div(a, b), min(a, b), max(a, b), log2_ceil(a), bits_for(a) (the
// unsigned width that holds 0..a: 1 for a <= 1). Arithmetic is on int64; '/' and
// '%' truncate toward zero, as in C++; overflow is an error, never a wrapped value. Parentheses
// and unary minus nest at most 64 deep. Parameters are folded to constants when the expression is
// compiled, so evaluation touches only the instruction's fields.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "systole/isa/diagnostic.h"

namespace systole::isa {

/// What a name in an expression stands for: a constant (a config parameter) or the value of an
/// instruction field, passed at evaluation time by its index.
struct NameBinding {
  enum class Kind { Constant, Field } kind = Kind::Constant;
  int64_t value = 0;    // for Constant
  int field_index = 0;  // for Field
};

/// Resolves a name; returns nullopt for an unknown name (a compile error).
using NameResolver = std::function<std::optional<NameBinding>(std::string_view name)>;

class Expr {
 public:
  Expr() = default;

  /// Compiles `text`. `where` is the location of the text's first character; errors point at the
  /// offending character.
  static Expr compile(std::string_view text, const NameResolver& resolve, const SourceLocation& where);

  /// Evaluates with the given field values. Throws Error on division by zero and on a result
  /// outside int64 (checked arithmetic; compile() reports both for constant subexpressions).
  int64_t eval(std::span<const int64_t> fields = {}) const;

  const std::string& text() const { return text_; }
  /// The expression in infix, fully parenthesized, for a generator (the SystemVerilog package):
  /// constants as decimal, each field as `field(index)`, each function as `function_prefix + name`.
  std::string render(const std::function<std::string(int)>& field, std::string_view function_prefix) const;
  bool isConstant() const { return code_.size() == 1 && code_[0].op == Op::Push; }

 private:
  enum class Op : uint8_t { Push, Field, Neg, Add, Sub, Mul, Div, Mod, CeilDiv, Min, Max, Log2Ceil, BitsFor };
  struct Step {
    Op op;
    int64_t arg;
  };
  static constexpr int kMaxStack = 32;
  friend class ExprParser;
  static std::optional<int64_t> applyOp(Op op, const int64_t* args);  // nullopt on overflow
  int64_t checked(std::optional<int64_t> v) const;

  std::string text_;
  std::vector<Step> code_;  // postfix program
};

}  // namespace systole::isa
