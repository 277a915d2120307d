// Algorithm: print every parameter-table entry, opcode and field position as a localparam, with
// names upper-cased and '.' turned into '_' (array.rows -> ARRAY_ROWS, gemm.m -> GEMM_M_LSB).
#include <algorithm>
#include <cctype>
#include <ostream>
#include <sstream>

#include "systole/isa/generate.h"

namespace systole::isa {

namespace {

/// The expression functions (isa/expr.h), with C++'s truncating division.
constexpr const char* kExprFunctions = R"(  function automatic longint expr_ceil_div(longint a, longint b);
    return (a % b != 0 && ((a < 0) == (b < 0))) ? a / b + 1 : a / b;
  endfunction
  function automatic longint expr_min(longint a, longint b);
    return a < b ? a : b;
  endfunction
  function automatic longint expr_max(longint a, longint b);
    return a > b ? a : b;
  endfunction
  function automatic longint expr_log2_ceil(longint a);
    longint bits = 0;
    while (bits < 63 && (64'sd1 <<< bits) < a) bits++;
    return bits;
  endfunction
  function automatic longint expr_bits_for(longint a);
    longint bits = 1;
    while (bits < 63 && (a >>> bits) > 0) bits++;
    return bits;
  endfunction
)";

/// The decoded form of an instruction word and the function that decodes one: opcode, token
/// flags, fields (at the YAML's positions, sign-extended where signed) in the semantics class's
/// operand order, and the YAML's timing expressions evaluated on them.
void writeDecoder(const IsaConfig& isa, std::ostream& out) {
  const Params& p = isa.params();
  out << "  localparam int INSTR_BITS = " << p.instr_bits << ";\n";
  out << "  localparam int OPCODE_BITS = " << p.opcode_bits << ";\n";
  out << "  // Semantics classes (isa::Semantics) and units (isa::Unit) by number.\n";
  for (const auto& info : allSemantics())
    out << "  localparam int SEM_" << svName(std::string(info.name)) << " = " << static_cast<int>(info.semantics)
        << ";\n";
  for (int u = 0; u < kNumUnits; ++u)
    out << "  localparam int UNIT_" << svName(std::string(unitName(static_cast<Unit>(u)))) << " = " << u << ";\n";
  out << kExprFunctions;
  out << R"(  // A decoded instruction. tokens: pop_prev, pop_next, push_prev, push_next from bit 0; cycles:
  // timing.cycles; occupancy: how long it holds its unit (timing.issue where the unit keeps
  // several in flight, else cycles).
  typedef struct packed {
    logic known;
    logic [4:0] semantics;
    logic [1:0] unit;
    logic [3:0] tokens;
    logic [7:0][63:0] operands;
    logic [63:0] cycles;
    logic [63:0] occupancy;
  } instr_t;
  /* verilator lint_off UNUSEDSIGNAL */  // the reserved bits
  function automatic instr_t decode(logic [INSTR_BITS-1:0] w);
    instr_t d;
    longint f[8];
    d = '0;
    for (int i = 0; i < 8; i++) f[i] = 0;
    d.tokens = w[TOKEN_LSB+:4];
    case (int'(w[OPCODE_BITS-1:0]))
)";
  const auto field = [](int k) { return "f[" + std::to_string(k) + "]"; };
  for (const auto& d : isa.instructions()) {
    const SemanticsInfo& info = semanticsInfo(d.semantics);
    out << "      OPC_" << svName(d.name) << ": begin\n";
    out << "        d.known = 1'b1;\n        d.semantics = 5'(SEM_" << svName(std::string(info.name)) << ");\n";
    out << "        d.unit = 2'(UNIT_" << svName(std::string(unitName(d.unit))) << ");\n";
    for (size_t k = 0; k < d.fields.size(); ++k) {
      const std::string bits = svName(d.name + "." + d.fields[k].name);
      const std::string slice = "w[" + bits + "_LSB+:" + bits + "_BITS]";
      out << "        f[" << k << "] = longint'(" << (d.fields[k].is_signed ? "$signed(" + slice + ")" : slice)
          << ");\n";
    }
    for (int k = 0; k < info.operandCount(); ++k)
      out << "        d.operands[" << k << "] = f[" << d.operand_field[static_cast<size_t>(k)] << "];\n";
    const std::string cycles = d.cycles.render(field, "expr_");
    out << "        d.cycles = " << cycles << ";\n";
    const bool pipelined = d.has_issue && (d.unit == Unit::Compute || p.dma_outstanding > 1);
    out << "        d.occupancy = "
        << (pipelined ? "expr_min(" + cycles + ", " + d.issue.render(field, "expr_") + ")" : cycles) << ";\n";
    out << "      end\n";
  }
  out << "      default: ;\n    endcase\n    return d;\n  endfunction\n  /* verilator lint_on UNUSEDSIGNAL */\n";
}

}  // namespace

std::string svName(std::string s) {
  for (char& c : s) c = (c == '.' || c == '-') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string generateSvPackage(const IsaConfig& isa, const std::string& sourceName) {
  const Params& p = isa.params();
  std::ostringstream out;
  out << "// Generated from " << sourceName << " by `systole isa svpkg`. Do not edit.\n";
  out << "// ISA '" << p.name << "', config hash 0x" << std::hex << isa.hash() << std::dec << ".\n";
  out << "// Every block imports this one package and uses only some of it.\n";
  out << "/* verilator lint_off UNUSEDPARAM */\n";
  out << "package systole_pkg;\n";
  out << "  localparam string ISA_NAME = \"" << p.name << "\";\n";
  out << "  localparam int DATAFLOW_OUTPUT_STATIONARY = " << (p.dataflow == Dataflow::OutputStationary) << ";\n";
  for (const auto& e : parameterTable(p))
    if (e.value <= INT32_MAX)
      out << "  localparam int " << svName(e.name) << " = " << e.value << ";\n";
    else
      out << "  localparam longint " << svName(e.name) << " = 64'd" << e.value << ";\n";
  out << "  localparam int TOKEN_LSB = " << p.token_lsb << ";\n";
  for (const auto& d : isa.instructions()) {
    out << "  // " << d.name << " (" << semanticsInfo(d.semantics).name << ")\n";
    out << "  localparam int OPC_" << svName(d.name) << " = " << d.opcode << ";\n";
    for (const auto& f : d.fields) {
      out << "  localparam int " << svName(d.name + "." + f.name) << "_LSB = " << f.lsb << ";\n";
      out << "  localparam int " << svName(d.name + "." + f.name) << "_BITS = " << f.bits << ";\n";
    }
  }
  writeDecoder(isa, out);
  out << "endpackage\n";
  out << "/* verilator lint_on UNUSEDPARAM */\n";
  return out.str();
}

}  // namespace systole::isa
