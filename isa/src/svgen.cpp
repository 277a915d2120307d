// Algorithm: print every parameter-table entry, opcode and field position as a localparam, with
// names upper-cased and '.' turned into '_' (array.rows -> ARRAY_ROWS, gemm.m -> GEMM_M_LSB).
#include <algorithm>
#include <cctype>
#include <sstream>

#include "systole/isa/generate.h"

namespace systole::isa {

namespace {

std::string svName(std::string s) {
  for (char& c : s) c = (c == '.' || c == '-') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

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
  out << "endpackage\n";
  out << "/* verilator lint_on UNUSEDPARAM */\n";
  return out.str();
}

}  // namespace systole::isa
