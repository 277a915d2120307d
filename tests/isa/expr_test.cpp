// The expression evaluator of the ISA YAML: grammar, arithmetic, constant folding, field variables
// and error positions.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>

#include "systole/isa/expr.h"
#include "test_util.h"

namespace systole::isa {
namespace {

using test::catchError;

// Field indices: m = 0, rows = 1, bytes = 2.
std::optional<NameBinding> resolve(std::string_view name) {
  static const std::map<std::string, int64_t, std::less<>> constants = {
      {"array.rows", 16},           {"array.cols", 8}, {"dram.latency", 100},
      {"dram.bytes_per_cycle", 16}, {"zero", 0},       {"neg", -7}};
  static const std::map<std::string, int, std::less<>> fields = {{"m", 0}, {"rows", 1}, {"bytes", 2}};
  if (auto it = constants.find(name); it != constants.end())
    return NameBinding{NameBinding::Kind::Constant, it->second, 0};
  if (auto it = fields.find(name); it != fields.end()) return NameBinding{NameBinding::Kind::Field, 0, it->second};
  return std::nullopt;
}

const SourceLocation kWhere{"cfg.yaml", 7, 20};

Expr compile(std::string_view text, const SourceLocation& where = kWhere) {
  return Expr::compile(text, resolve, where);
}

int64_t evalConst(std::string_view text) {
  Expr e = compile(text);
  EXPECT_TRUE(e.isConstant()) << text;
  return e.eval();
}

int64_t evalWith(std::string_view text, int64_t m, int64_t rows = 0, int64_t bytes = 0) {
  const std::array<int64_t, 3> fields = {m, rows, bytes};
  return compile(text).eval(fields);
}

/// Compiles `text`, expecting an Error at character `offset` of the text; returns the message.
std::string compileErrorAt(std::string_view text, int offset, const SourceLocation& where = kWhere) {
  auto e = catchError([&] { compile(text, where); });
  if (!e) return "";
  EXPECT_EQ(e->where().file, where.file) << text;
  EXPECT_EQ(e->where().line, where.line) << text;
  EXPECT_EQ(e->where().col, where.col + offset) << text << ": " << e->what();
  return e->message();
}

// render(): the text the SystemVerilog package's decoder evaluates (svgen.cpp): constants folded,
// fields named by the caller, every operation parenthesized, functions with the given prefix.
TEST(Expr, RendersInfixWithNamedFieldsAndPrefixedFunctions) {
  const auto field = [](int k) { return "f[" + std::to_string(k) + "]"; };
  EXPECT_EQ(compile("dram.latency + rows * ceil_div(bytes, dram.bytes_per_cycle)").render(field, "expr_"),
            "(100 + (f[1] * expr_ceil_div(f[2], 16)))");
  EXPECT_EQ(compile("m + array.rows + array.cols - 2").render(field, "expr_"), "(((f[0] + 16) + 8) - 2)");
  EXPECT_EQ(compile("max(m, 1) % 3 / -rows").render(field, "p_"), "((p_max(f[0], 1) % 3) / (-f[1]))");
  EXPECT_EQ(compile("log2_ceil(m) + bits_for(rows) - min(bytes, neg)").render(field, ""),
            "((log2_ceil(f[0]) + bits_for(f[1])) - min(f[2], (-7)))");
  EXPECT_EQ(compile("2 * array.rows").render(field, "expr_"), "32");  // folded
}

TEST(Expr, Literals) {
  EXPECT_EQ(evalConst("0"), 0);
  EXPECT_EQ(evalConst("42"), 42);
  EXPECT_EQ(evalConst("  42\t"), 42);
  EXPECT_EQ(evalConst("9223372036854775799"), 9223372036854775799LL);
}

TEST(Expr, Precedence) {
  EXPECT_EQ(evalConst("1 + 2 * 3"), 7);
  EXPECT_EQ(evalConst("2 * 3 + 1"), 7);
  EXPECT_EQ(evalConst("7 - 2 * 3 + 1"), 2);
  EXPECT_EQ(evalConst("1+2*3-4/2"), 5);
  EXPECT_EQ(evalConst("2 * 3 % 4"), 2);    // (2*3)%4, not 2*(3%4)
  EXPECT_EQ(evalConst("20 % 7 * 2"), 12);  // (20%7)*2
  EXPECT_EQ(evalConst("1 + 10 % 4"), 3);
}

TEST(Expr, LeftAssociative) {
  EXPECT_EQ(evalConst("10 - 4 - 3"), 3);
  EXPECT_EQ(evalConst("100 / 10 / 5"), 2);
  EXPECT_EQ(evalConst("100 % 30 % 7"), 3);
  EXPECT_EQ(evalConst("64 / 4 * 2"), 32);
}

TEST(Expr, UnaryMinus) {
  EXPECT_EQ(evalConst("-3"), -3);
  EXPECT_EQ(evalConst("--3"), 3);
  EXPECT_EQ(evalConst("- - -3"), -3);
  EXPECT_EQ(evalConst("-3 * -2"), 6);
  EXPECT_EQ(evalConst("2 - -3"), 5);
  EXPECT_EQ(evalConst("-2 + 3"), 1);  // binds tighter than '+'
  EXPECT_EQ(evalConst("-(1 + 2)"), -3);
  EXPECT_EQ(evalConst("-array.rows"), -16);
  EXPECT_EQ(evalConst("-neg"), 7);
  EXPECT_EQ(evalWith("-m + 1", 5), -4);
  EXPECT_EQ(evalWith("--m", 5), 5);
}

TEST(Expr, Parentheses) {
  EXPECT_EQ(evalConst("(1 + 2) * 3"), 9);
  EXPECT_EQ(evalConst("((((7))))"), 7);
  EXPECT_EQ(evalConst("2 * (3 + (4 - 1))"), 12);
  EXPECT_EQ(evalConst("10 - (4 - 3)"), 9);
  EXPECT_EQ(evalConst("( 1 + 2 ) * ( 3 + 4 )"), 21);
}

TEST(Expr, CeilDiv) {
  EXPECT_EQ(evalConst("ceil_div(7, 2)"), 4);
  EXPECT_EQ(evalConst("ceil_div(8, 2)"), 4);
  EXPECT_EQ(evalConst("ceil_div(0, 5)"), 0);
  EXPECT_EQ(evalConst("ceil_div(1, 16)"), 1);
  EXPECT_EQ(evalConst("ceil_div(16, 16)"), 1);
  EXPECT_EQ(evalConst("ceil_div(17, 16)"), 2);
  // Mathematical ceiling for every sign combination.
  EXPECT_EQ(evalConst("ceil_div(-7, 2)"), -3);
  EXPECT_EQ(evalConst("ceil_div(7, -2)"), -3);
  EXPECT_EQ(evalConst("ceil_div(-7, -2)"), 4);
  EXPECT_EQ(evalConst("ceil_div(-8, 2)"), -4);
  EXPECT_EQ(evalConst("ceil_div( 3 + 4 , 1 + 1 )"), 4);
  EXPECT_EQ(evalWith("rows * ceil_div(bytes, dram.bytes_per_cycle)", 0, 3, 17), 6);
}

TEST(Expr, MinMax) {
  EXPECT_EQ(evalConst("min(3, 5)"), 3);
  EXPECT_EQ(evalConst("min(5, 3)"), 3);
  EXPECT_EQ(evalConst("max(3, 5)"), 5);
  EXPECT_EQ(evalConst("max(5, 3)"), 5);
  EXPECT_EQ(evalConst("min(-1, 1)"), -1);
  EXPECT_EQ(evalConst("max(-1, -2)"), -1);
  EXPECT_EQ(evalConst("max(min(1, 2), 0)"), 1);
  EXPECT_EQ(evalConst("min(4, 4)"), 4);
  EXPECT_EQ(evalWith("max(m, array.rows)", 3), 16);
  EXPECT_EQ(evalWith("max(m, array.rows)", 30), 30);
  EXPECT_EQ(evalWith("min(m, rows)", 30, -2), -2);
}

TEST(Expr, BitsFor) {
  EXPECT_EQ(evalConst("bits_for(0)"), 1);
  EXPECT_EQ(evalConst("bits_for(1)"), 1);
  EXPECT_EQ(evalConst("bits_for(2)"), 2);
  EXPECT_EQ(evalConst("bits_for(15)"), 4);
  EXPECT_EQ(evalConst("bits_for(16)"), 5);
  EXPECT_EQ(evalConst("bits_for(array.rows * array.cols - 1)"), 7);  // 127
  EXPECT_EQ(evalConst("bits_for(-5)"), 1);
  EXPECT_EQ(evalConst("bits_for(4611686018427387903)"), 62);  // 2^62 - 1
  EXPECT_EQ(evalConst("bits_for(4611686018427387904)"), 63);  // 2^62
}

TEST(Expr, Log2Ceil) {
  EXPECT_EQ(evalConst("log2_ceil(0)"), 0);
  EXPECT_EQ(evalConst("log2_ceil(1)"), 0);
  EXPECT_EQ(evalConst("log2_ceil(2)"), 1);
  EXPECT_EQ(evalConst("log2_ceil(3)"), 2);
  EXPECT_EQ(evalConst("log2_ceil(4)"), 2);
  EXPECT_EQ(evalConst("log2_ceil(5)"), 3);
  EXPECT_EQ(evalConst("log2_ceil(16)"), 4);
  EXPECT_EQ(evalConst("log2_ceil(17)"), 5);
  EXPECT_EQ(evalConst("log2_ceil(array.rows * array.cols)"), 7);
  EXPECT_EQ(evalConst("log2_ceil(1099511627776)"), 40);        // 2^40
  EXPECT_EQ(evalConst("log2_ceil(1099511627777)"), 41);        // 2^40 + 1
  EXPECT_EQ(evalConst("log2_ceil(4611686018427387904)"), 62);  // 2^62
  EXPECT_EQ(evalConst("log2_ceil(4611686018427387905)"), 63);  // 2^62 + 1
  EXPECT_EQ(evalConst("log2_ceil(9223372036854775799)"), 63);
  // Compile-time folding and run-time evaluation agree.
  for (int64_t v : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{1000}, int64_t{1} << 62, (int64_t{1} << 62) + 1,
                    int64_t{9223372036854775799}}) {
    const std::string text = "log2_ceil(" + std::to_string(v) + ")";
    EXPECT_EQ(evalWith("log2_ceil(m)", v), evalConst(text)) << v;
  }
}

TEST(Expr, TruncatingDivisionAndModulo) {
  EXPECT_EQ(evalConst("7 / 2"), 3);
  EXPECT_EQ(evalConst("-7 / 2"), -3);
  EXPECT_EQ(evalConst("7 / -2"), -3);
  EXPECT_EQ(evalConst("-7 / -2"), 3);
  EXPECT_EQ(evalConst("7 % 2"), 1);
  EXPECT_EQ(evalConst("-7 % 2"), -1);
  EXPECT_EQ(evalConst("7 % -2"), 1);
  EXPECT_EQ(evalConst("-7 % -2"), -1);
  EXPECT_EQ(evalConst("neg / 2"), -3);
  EXPECT_EQ(evalConst("neg % 4"), -3);
  // Same rules at evaluation time.
  for (int64_t a : {-9, -7, -1, 0, 1, 7, 9})
    for (int64_t b : {-4, -2, -1, 1, 2, 3}) {
      EXPECT_EQ(evalWith("m / rows", a, b), a / b) << a << " / " << b;
      EXPECT_EQ(evalWith("m % rows", a, b), a % b) << a << " % " << b;
    }
}

TEST(Expr, ConstantFolding) {
  EXPECT_TRUE(compile("1 + 2").isConstant());
  EXPECT_TRUE(compile("array.rows * 2 + dram.latency").isConstant());
  EXPECT_EQ(compile("array.rows * 2 + dram.latency").eval(), 132);
  EXPECT_TRUE(compile("ceil_div(array.rows, 3) + log2_ceil(array.cols)").isConstant());
  EXPECT_TRUE(compile("-(array.rows)").isConstant());
  EXPECT_TRUE(compile("max(min(array.rows, array.cols), 1)").isConstant());
  EXPECT_FALSE(compile("m").isConstant());
  EXPECT_FALSE(compile("m + 1").isConstant());
  EXPECT_FALSE(compile("max(m, 1)").isConstant());
  EXPECT_FALSE(compile("-m").isConstant());
  EXPECT_FALSE(compile("log2_ceil(rows)").isConstant());
  // A constant expression evaluates without any fields.
  EXPECT_EQ(compile("dram.latency + array.rows + array.cols - 2").eval(), 122);
}

TEST(Expr, PartialFoldingKeepsValue) {
  // The constant subtree is folded, the field part is evaluated at run time.
  Expr e = compile("m + (array.rows + array.cols - 2)");
  EXPECT_FALSE(e.isConstant());
  EXPECT_EQ(e.eval(std::array<int64_t, 3>{16, 0, 0}), 38);
  EXPECT_EQ(e.eval(std::array<int64_t, 3>{0, 0, 0}), 22);
}

TEST(Expr, FieldVariables) {
  EXPECT_EQ(evalWith("m + array.rows + array.cols - 2", 16), 38);
  EXPECT_EQ(evalWith("dram.latency + rows * ceil_div(bytes, dram.bytes_per_cycle)", 0, 4, 16), 104);
  EXPECT_EQ(evalWith("dram.latency + rows * ceil_div(bytes, dram.bytes_per_cycle)", 0, 4, 17), 108);
  EXPECT_EQ(evalWith("m * rows - bytes", 3, 5, 7), 8);
  EXPECT_EQ(evalWith("m * m * m", -3), -27);
  // The expression keeps its source text.
  EXPECT_EQ(compile("m  +  1").text(), "m  +  1");
}

TEST(Expr, StackDepthLimit) {
  // m + (m + (m + ...)) needs one stack slot per m; 32 fit, 33 do not.
  auto nested = [](int n) {
    std::string s = "m";
    for (int i = 1; i < n; ++i) s = "m + (" + s + ")";
    return s;
  };
  EXPECT_EQ(evalWith(nested(32), 3), 96);
  std::string deep = nested(33);
  auto e = catchError([&] { compile(deep); });
  ASSERT_TRUE(e);
  EXPECT_NE(e->message().find("nests too deeply"), std::string::npos) << e->message();
  // Left nesting is shallow however long it is.
  std::string flat = "m";
  for (int i = 1; i < 100; ++i) flat += " + m";
  EXPECT_EQ(evalWith(flat, 2), 200);
  // Deeply nested constants fold away entirely.
  std::string consts = "1";
  for (int i = 1; i < 40; ++i) consts = "1 + (" + consts + ")";
  EXPECT_EQ(evalConst(consts), 40);
}

TEST(ExprErrors, UnknownName) {
  std::string msg = compileErrorAt("m + foo * 2", 4);
  EXPECT_NE(msg.find("unknown name 'foo'"), std::string::npos) << msg;
  msg = compileErrorAt("array.rowz", 0);
  EXPECT_NE(msg.find("'array.rowz'"), std::string::npos) << msg;
  compileErrorAt("dram.latency + rows * ceil_div(bytes, dram.bytes_per_cyc)", 38);
  compileErrorAt("  x", 2);
}

TEST(ExprErrors, UnknownFunction) {
  std::string msg = compileErrorAt("1 + sqrt(4)", 4);
  EXPECT_NE(msg.find("unknown function 'sqrt'"), std::string::npos) << msg;
  compileErrorAt("max(1, floor(2))", 7);
  // A known constant used as a function is still an unknown function.
  compileErrorAt("array.rows(1)", 0);
}

TEST(ExprErrors, WrongArity) {
  std::string msg = compileErrorAt("min(1)", 0);
  EXPECT_NE(msg.find("'min' takes 2 argument(s), got 1"), std::string::npos) << msg;
  msg = compileErrorAt("1 + ceil_div(1, 2, 3)", 4);
  EXPECT_NE(msg.find("got 3"), std::string::npos) << msg;
  msg = compileErrorAt("log2_ceil(1, 2)", 0);
  EXPECT_NE(msg.find("'log2_ceil' takes 1"), std::string::npos) << msg;
  msg = compileErrorAt("max()", 0);
  EXPECT_NE(msg.find("got 0"), std::string::npos) << msg;
  compileErrorAt("log2_ceil()", 0);
}

TEST(ExprErrors, TrailingJunk) {
  std::string msg = compileErrorAt("1 + 2 )", 6);
  EXPECT_NE(msg.find("unexpected ')'"), std::string::npos) << msg;
  compileErrorAt("m m", 2);
  msg = compileErrorAt("3 $", 2);
  EXPECT_NE(msg.find("'$'"), std::string::npos) << msg;
  compileErrorAt("rows 2", 5);
  compileErrorAt("(1) (2)", 4);
}

TEST(ExprErrors, Malformed) {
  compileErrorAt("", 0);
  compileErrorAt("1 +", 3);
  compileErrorAt("(1 + 2", 6);
  compileErrorAt("* 2", 0);
  compileErrorAt("min(1 2)", 6);
  compileErrorAt("min(1, )", 7);
  compileErrorAt("99999999999999999999", 0);  // does not fit int64
}

TEST(ExprErrors, DivisionByZeroAtCompileTime) {
  std::string msg = compileErrorAt("m + 4 / (2 - 2)", 6);
  EXPECT_NE(msg.find("division by zero"), std::string::npos) << msg;
  compileErrorAt("5 % 0", 2);
  compileErrorAt("ceil_div(5, zero)", 0);
  compileErrorAt("1 + ceil_div(5, array.rows - 16)", 4);
  compileErrorAt("dram.latency / (array.rows - 16)", 13);
  // A constant zero divisor is an error even when the dividend is a field.
  compileErrorAt("m / (array.rows - 16)", 2);
  compileErrorAt("rows + m % zero", 9);
  compileErrorAt("ceil_div(bytes, 0)", 0);
  compileErrorAt("max(m, 1) / 0", 10);
}

// A unary operator on INT64_MIN reads only its one operand (found by tests/fuzz/expr_fuzzer: the
// folder read past a one-element buffer, a heap-buffer-overflow under the asan preset).
TEST(ExprErrors, UnaryOperatorOnInt64Min) {
  EXPECT_NE(compileErrorAt("-(0 - 9223372036854775799 - 9)", 0).find("arithmetic overflow"), std::string::npos);
  EXPECT_EQ(evalConst("log2_ceil(0 - 9223372036854775799 - 9)"), 0);
  const std::array<int64_t, 3> min = {INT64_MIN, 0, 0};
  auto err = catchError([&] { compile("-m").eval(min); });
  ASSERT_TRUE(err);
  EXPECT_NE(err->message().find("arithmetic overflow"), std::string::npos) << err->message();
}

TEST(ExprErrors, DivisionByZeroAtEvalTime) {
  for (const char* text : {"100 / m", "100 % m", "ceil_div(100, m)", "rows + bytes / (m * 2)"}) {
    Expr e = compile(text);  // compiles: the divisor is a field
    EXPECT_FALSE(e.isConstant());
    const std::array<int64_t, 3> zero = {0, 1, 1};
    auto err = catchError([&] { e.eval(zero); });
    ASSERT_TRUE(err) << text;
    EXPECT_NE(err->message().find("division by zero"), std::string::npos) << err->message();
    EXPECT_NE(err->message().find(text), std::string::npos) << "names the expression: " << err->message();
    const std::array<int64_t, 3> five = {5, 1, 1};
    EXPECT_NO_THROW(e.eval(five)) << text;
  }
  EXPECT_EQ(evalWith("100 / m", 5), 20);
  EXPECT_EQ(evalWith("100 % m", 7), 2);
  EXPECT_EQ(evalWith("ceil_div(100, m)", 7), 15);
}

TEST(ExprErrors, ColumnIsRelativeToTheGivenLocation) {
  for (int col : {1, 5, 33}) {
    const SourceLocation where{"a.yaml", 12, col};
    compileErrorAt("rows + bogus", 7, where);
  }
  // An unknown column stays unknown instead of becoming a made-up one.
  auto e = catchError([&] { compile("rows + bogus", SourceLocation{"a.yaml", 3, 0}); });
  ASSERT_TRUE(e);
  EXPECT_EQ(e->where().line, 3);
  EXPECT_EQ(e->where().col, 0);
  // what() renders the location.
  auto e2 = catchError([&] { compile("rows + bogus", SourceLocation{"a.yaml", 3, 10}); });
  ASSERT_TRUE(e2);
  EXPECT_EQ(std::string(e2->what()).rfind("a.yaml:3:17: error: ", 0), 0u) << e2->what();
}

}  // namespace
}  // namespace systole::isa

namespace systole {
namespace {

// Diagnostics stay one bounded line whatever the input holds (issue 16 D11, D13).
TEST(Diagnostic, MessagesAndFileNamesArePrintableAndBounded) {
  const Error e(SourceLocation{std::string("a\0b.sbin", 8), 3, 4}, "bad name 'x\ny' " + std::string(5000, 'z'));
  const std::string what = e.what();
  EXPECT_EQ(what.find('\n'), std::string::npos);
  EXPECT_EQ(what.find('\0'), std::string::npos);
  EXPECT_NE(what.find("a\\x00b.sbin:3:4: error: bad name 'x\\x0ay' zzz"), std::string::npos) << what;
  EXPECT_NE(what.find("more bytes)"), std::string::npos);
  EXPECT_LT(what.size(), 2 * kMaxDiagnosticText);
  EXPECT_EQ(printable("plain", 10), "plain");
  EXPECT_EQ(printable("0123456789abc", 10), "0123456789... (3 more bytes)");
}

}  // namespace
}  // namespace systole
