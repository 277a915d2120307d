// Algorithm: a line-at-a-time lexer (identifiers, numbers, punctuation, each with its column)
// feeding a statement parser that looks mnemonics and fields up in the config's instruction table;
// every error names the column of the token that caused it.
#include "systole/isa/assembler.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

namespace systole::isa {

namespace {

struct Token {
  enum Kind { Name, Number, Punct, End } kind = End;
  std::string text;
  int col = 0;
};

class LineLexer {
 public:
  LineLexer(std::string_view line, SourceLocation where) : line_(line), where_(std::move(where)) { advance(); }

  const Token& peek() const { return tok_; }
  Token next() {
    Token t = tok_;
    advance();
    return t;
  }
  bool acceptPunct(char c) {
    if (tok_.kind == Token::Punct && tok_.text[0] == c) {
      advance();
      return true;
    }
    return false;
  }
  [[noreturn]] void fail(const Token& at, const std::string& msg) const { fail(at.col, msg); }
  [[noreturn]] void fail(int col, const std::string& msg) const { throw Error({where_.file, where_.line, col}, msg); }
  int endCol() const { return static_cast<int>(line_.size()) + 1; }

 private:
  void advance() {
    while (pos_ < line_.size() && std::isspace(static_cast<unsigned char>(line_[pos_]))) ++pos_;
    tok_ = Token{};
    tok_.col = static_cast<int>(pos_) + 1;
    if (pos_ >= line_.size() || line_[pos_] == '#') {
      tok_.kind = Token::End;
      return;
    }
    const size_t start = pos_;
    const char c = line_[pos_];
    auto isNameChar = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.'; };
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
      while (pos_ < line_.size() && isNameChar(line_[pos_])) ++pos_;
      tok_.kind = Token::Name;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               ((c == '-' || c == '+') && pos_ + 1 < line_.size() &&
                (std::isdigit(static_cast<unsigned char>(line_[pos_ + 1])) || line_[pos_ + 1] == '.'))) {
      ++pos_;
      while (pos_ < line_.size() && (isNameChar(line_[pos_]) || ((line_[pos_] == '-' || line_[pos_] == '+') &&
                                                                 (line_[pos_ - 1] == 'e' || line_[pos_ - 1] == 'E'))))
        ++pos_;
      tok_.kind = Token::Number;
    } else {
      ++pos_;
      tok_.kind = Token::Punct;
    }
    tok_.text = std::string(line_.substr(start, pos_ - start));
  }

  std::string_view line_;
  SourceLocation where_;
  size_t pos_ = 0;
  Token tok_;
};

int64_t parseInt(const LineLexer& lx, const Token& t) {
  if (t.kind != Token::Number) lx.fail(t, "expected an integer, got '" + t.text + "'");
  std::string_view s = t.text;
  bool negative = false;
  if (s[0] == '-' || s[0] == '+') {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || ptr != s.data() + s.size() || value > (uint64_t{1} << 62))
    lx.fail(t, "invalid integer '" + t.text + "'");
  return negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
}

float parseFloat(const LineLexer& lx, const Token& t) {
  if (t.kind != Token::Number) lx.fail(t, "expected a number, got '" + t.text + "'");
  char* end = nullptr;
  const float v = std::strtof(t.text.c_str(), &end);
  if (end != t.text.c_str() + t.text.size() || !std::isfinite(v)) lx.fail(t, "invalid number '" + t.text + "'");
  return v;
}

class Assembler {
 public:
  Assembler(const IsaConfig& isa, std::string filename) : isa_(isa), file_(std::move(filename)) {
    prog_.isa_name = isa.params().name;
    prog_.isa_hash = isa.hash();
    prog_.instr_bytes = static_cast<uint32_t>(isa.params().instr_bytes);
  }

  Program run(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      LineLexer lx(line, {file_, lineNo, 0});
      if (lx.peek().kind == Token::End) continue;
      statement(lx);
      if (lx.peek().kind != Token::End) lx.fail(lx.peek(), "unexpected '" + lx.peek().text + "' at end of statement");
    }
    return std::move(prog_);
  }

 private:
  void statement(LineLexer& lx) {
    const Token head = lx.next();
    if (head.kind != Token::Name) lx.fail(head, "expected an instruction or a directive, got '" + head.text + "'");
    if (head.text == ".tensor") return tensor(lx);
    if (head.text == ".data") {
      const Token t = lx.next();
      const auto addr = static_cast<uint64_t>(nonNegative(lx, t, "data address"));
      if (addr > dramSize())
        lx.fail(t, "data address " + t.text + " is outside DRAM (" + std::to_string(dramSize()) + " bytes)");
      prog_.data.push_back({addr, {}});
      return;
    }
    if (head.text == ".byte" || head.text == ".half" || head.text == ".word" || head.text == ".zero")
      return data(lx, head);
    if (head.text[0] == '.') lx.fail(head, "unknown directive '" + head.text + "'");
    instruction(lx, head);
  }

  int64_t nonNegative(const LineLexer& lx, const Token& t, const char* what) {
    int64_t v = parseInt(lx, t);
    if (v < 0) lx.fail(t, std::string(what) + " must not be negative");
    return v;
  }

  uint64_t dramSize() const { return static_cast<uint64_t>(isa_.params().dram_size); }

  void data(LineLexer& lx, const Token& head) {
    if (prog_.data.empty()) lx.fail(head, "'" + head.text + "' before any '.data ADDR' directive");
    const uint64_t base = prog_.data.back().dram_addr;
    auto& bytes = prog_.data.back().bytes;
    // The segment must stay inside DRAM (a reader rejects it otherwise); `.data` checked base <= size.
    auto reserve = [&](const Token& t, uint64_t n) {
      if (n > dramSize() - base - bytes.size())
        lx.fail(t, "data segment at " + std::to_string(base) + " does not fit in DRAM (" + std::to_string(dramSize()) +
                       " bytes)");
    };
    if (head.text == ".zero") {
      const Token t = lx.next();
      int64_t n = nonNegative(lx, t, "byte count");
      if (n > (int64_t{1} << 30)) lx.fail(t, "'.zero' count too large");
      reserve(t, static_cast<uint64_t>(n));
      bytes.resize(bytes.size() + static_cast<size_t>(n), 0);
      return;
    }
    // .byte, .half and .word: 1, 2 and 4 little-endian bytes, signed or unsigned values.
    const int size = head.text == ".byte" ? 1 : head.text == ".half" ? 2 : 4;
    const int64_t lo = -(int64_t{1} << (8 * size - 1)), hi = (int64_t{1} << (8 * size)) - 1;
    do {
      const Token t = lx.next();
      int64_t v = parseInt(lx, t);
      reserve(t, static_cast<uint64_t>(size));
      if (v < lo || v > hi)
        lx.fail(t, head.text.substr(1) + " value " + t.text + " out of range [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
      for (int b = 0; b < size; ++b) bytes.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * b)));
    } while (lx.acceptPunct(','));
  }

  void tensor(LineLexer& lx) {
    TensorInfo t;
    const Token kind = lx.next();
    auto k = tensorKindByName(kind.text);
    if (kind.kind != Token::Name || !k) lx.fail(kind, "expected a tensor kind (input, output, constant, intermediate)");
    t.kind = *k;
    const Token name = lx.next();
    if (name.kind != Token::Name) lx.fail(name, "expected a tensor name");
    t.name = name.text;
    for (const auto& other : prog_.tensors)
      if (other.name == t.name) lx.fail(name, "duplicate tensor '" + t.name + "'");
    const Token dtype = lx.next();
    auto d = dtypeByName(dtype.text);
    if (!d) lx.fail(dtype, "expected a dtype (int8, uint8, int16, int32, float32), got '" + dtype.text + "'");
    t.dtype = *d;
    if (!lx.acceptPunct('[')) lx.fail(lx.peek(), "expected '[' to start the shape");
    if (!lx.acceptPunct(']')) {
      do {  // a dimension the .sbin container can hold (found by tests/fuzz/asm_fuzzer)
        const Token dim = lx.next();
        t.shape.push_back(nonNegative(lx, dim, "dimension"));
        if (t.shape.back() > kMaxDimension)
          lx.fail(dim, "dimension " + dim.text + " is above " + std::to_string(kMaxDimension));
      } while (lx.acceptPunct(','));
      if (!lx.acceptPunct(']')) lx.fail(lx.peek(), "expected ',' or ']' in the shape");
    }
    if (!lx.acceptPunct('@')) lx.fail(lx.peek(), "expected '@ADDRESS' after the shape");
    t.dram_addr = static_cast<uint64_t>(nonNegative(lx, lx.next(), "address"));
    bool haveScale = false, haveZeroPoint = false;
    while (lx.peek().kind == Token::Name) {
      const Token key = lx.next();
      if (key.text != "scale" && key.text != "zero_point")
        lx.fail(key, "unknown tensor attribute '" + key.text + "' (expected scale or zero_point)");
      bool& seen = key.text == "scale" ? haveScale : haveZeroPoint;
      if (seen) lx.fail(key, "tensor attribute '" + key.text + "' given twice");
      seen = true;
      if (!lx.acceptPunct('=')) lx.fail(lx.peek(), "expected '=' after '" + key.text + "'");
      const Token value = lx.next();
      if (key.text == "scale") {
        t.scale = parseFloat(lx, value);
      } else {
        const int64_t zp = parseInt(lx, value);
        if (zp < INT32_MIN || zp > INT32_MAX) lx.fail(value, "zero_point " + value.text + " out of 32-bit range");
        t.zero_point = static_cast<int32_t>(zp);
      }
    }
    if (static_cast<uint64_t>(t.bytes()) > static_cast<uint64_t>(isa_.params().dram_size) ||
        t.dram_addr > static_cast<uint64_t>(isa_.params().dram_size) - static_cast<uint64_t>(t.bytes()))
      lx.fail(name, "tensor '" + t.name + "' does not fit in DRAM");
    prog_.tensors.push_back(std::move(t));
  }

  void instruction(LineLexer& lx, const Token& mnemonic) {
    Instruction in;
    in.desc = isa_.byName(mnemonic.text);
    if (in.desc < 0)
      lx.fail(mnemonic, "unknown instruction '" + mnemonic.text + "' for ISA '" + isa_.params().name + "'");
    const InstrDesc& d = isa_.instr(in.desc);
    std::vector<bool> given(d.fields.size(), false);
    size_t positional = 0;
    bool named = false;
    auto more = [&] {
      return lx.peek().kind != Token::End && !(lx.peek().kind == Token::Punct && lx.peek().text == "[");
    };
    if (more()) {
      do {
        const Token t = lx.next();
        size_t idx;
        Token valueTok = t;
        if (t.kind == Token::Name) {
          int f = d.fieldIndex(t.text);
          if (f < 0) lx.fail(t, "unknown field '" + t.text + "' for '" + d.name + "'" + fieldList(d));
          idx = static_cast<size_t>(f);
          if (!lx.acceptPunct('=')) lx.fail(lx.peek(), "expected '=' after field name '" + t.text + "'");
          valueTok = lx.next();
          named = true;
        } else {
          if (named) lx.fail(t, "positional operand after a named one");
          if (positional >= d.fields.size())
            lx.fail(t, "too many operands for '" + d.name + "' (it has " + std::to_string(d.fields.size()) + ")");
          idx = positional++;
        }
        if (given[idx]) lx.fail(t, "field '" + d.fields[idx].name + "' given twice");
        given[idx] = true;
        const int64_t value = parseInt(lx, valueTok);
        if (auto msg = checkFieldValue(d.fields[idx], value); !msg.empty()) lx.fail(valueTok, msg);
        in.fields[idx] = value;
      } while (lx.acceptPunct(','));
    }
    for (size_t i = 0; i < d.fields.size(); ++i)
      if (!given[i]) lx.fail(lx.peek().col, "missing operand '" + d.fields[i].name + "' for '" + d.name + "'");
    if (lx.acceptPunct('[')) {
      do {
        const Token t = lx.next();
        int flag = -1;
        for (int k = 0; k < kNumTokenFlags; ++k)
          if (kTokenFlagNames[static_cast<size_t>(k)] == t.text) flag = k;
        if (flag < 0)
          lx.fail(t, "unknown dependency token '" + t.text + "' (expected pop_prev, pop_next, push_prev, push_next)");
        const auto bit = static_cast<uint8_t>(1u << flag);
        if (in.tokens & bit) lx.fail(t, "token '" + t.text + "' given twice");
        if (auto msg = checkTokens(d, bit); !msg.empty()) lx.fail(t, msg);
        in.tokens |= bit;
      } while (lx.acceptPunct(','));
      if (!lx.acceptPunct(']')) lx.fail(lx.peek(), "expected ',' or ']' after a token");
    }
    const size_t at = prog_.code.size();
    prog_.code.resize(at + prog_.instr_bytes);
    encode(isa_, in, std::span(prog_.code).subspan(at, prog_.instr_bytes));
  }

  static std::string fieldList(const InstrDesc& d) {
    std::string s;
    for (const auto& f : d.fields) s += (s.empty() ? "" : ", ") + f.name;
    return " (fields: " + (s.empty() ? std::string("none") : s) + ")";
  }

  const IsaConfig& isa_;
  std::string file_;
  Program prog_;
};

std::string formatFloat(float v) {
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ptr);
}

std::string hexAddress(uint64_t a) {
  std::ostringstream s;
  s << "0x" << std::hex << a;
  return s.str();
}

}  // namespace

Program assemble(const IsaConfig& isa, const std::string& text, const std::string& filename) {
  return Assembler(isa, filename).run(text);
}

std::string formatInstruction(const IsaConfig& isa, const Instruction& in) {
  const InstrDesc& d = isa.instr(in.desc);
  std::string s = d.name;
  for (size_t i = 0; i < d.fields.size(); ++i)
    s += (i ? ", " : " ") + d.fields[i].name + "=" + std::to_string(in.fields[i]);
  if (in.tokens) {
    s += " [";
    bool first = true;
    for (int k = 0; k < kNumTokenFlags; ++k)
      if (in.tokens & (1u << k)) {
        s += (first ? "" : ", ") + std::string(kTokenFlagNames[static_cast<size_t>(k)]);
        first = false;
      }
    s += "]";
  }
  return s;
}

std::string disassemble(const IsaConfig& isa, const Program& program) {
  std::ostringstream out;
  out << "# program for ISA '" << program.isa_name << "', " << program.instructionCount() << " instructions\n";
  for (const auto& t : program.tensors) {
    out << ".tensor " << tensorKindName(t.kind) << " " << t.name << " " << dtypeName(t.dtype) << " [";
    for (size_t i = 0; i < t.shape.size(); ++i) out << (i ? ", " : "") << t.shape[i];
    out << "] @" << hexAddress(t.dram_addr);
    if (t.scale != 1.0f) out << " scale=" << formatFloat(t.scale);
    if (t.zero_point != 0) out << " zero_point=" << t.zero_point;
    out << "\n";
  }
  for (const auto& seg : program.data) {
    out << ".data " << hexAddress(seg.dram_addr) << "\n";
    const auto zeroLine = [&seg](size_t i) {
      return i + 16 <= seg.bytes.size() &&
             std::all_of(seg.bytes.begin() + static_cast<std::ptrdiff_t>(i),
                         seg.bytes.begin() + static_cast<std::ptrdiff_t>(i + 16), [](uint8_t b) { return b == 0; });
    };
    for (size_t i = 0; i < seg.bytes.size(); i += 16) {
      // Whole lines of zeros, one after another, as one .zero: a `.zero 100000000` stays one line
      // (as .byte lines it took minutes to print; found by tests/fuzz/asm_fuzzer).
      if (zeroLine(i)) {
        size_t end = i + 16;
        while (zeroLine(end)) end += 16;
        out << ".zero " << end - i << "\n";
        i = end - 16;
        continue;
      }
      out << ".byte ";
      for (size_t j = i; j < std::min(seg.bytes.size(), i + 16); ++j)
        out << (j > i ? ", " : "") << static_cast<int>(static_cast<int8_t>(seg.bytes[j]));
      out << "\n";
    }
  }
  for (const auto& in : decodeAll(isa, program.code)) out << formatInstruction(isa, in) << "\n";
  return out.str();
}

}  // namespace systole::isa
