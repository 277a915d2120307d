// Text <-> program. The assembly language, one statement per line ('#' starts a comment):
//
//   MNEMONIC [operand {, operand}] [ '[' token {, token} ']' ]
//       operand := VALUE | FIELD '=' VALUE      (positional operands in field order, then named)
//       token   := pop_prev | pop_next | push_prev | push_next
//   .tensor KIND NAME DTYPE '[' dim {, dim} ']' '@' ADDR [scale=FLOAT] [zero_point=INT]
//   .data ADDR                                  (starts a DRAM data segment)
//   .byte V {, V}    .word V {, V}    .zero N   (append int8/uint8, int32 LE, or N zero bytes)
//
// The disassembler prints every field by name, so disassemble(assemble(x)) reassembles to the
// same bytes.
#pragma once

#include <string>

#include "systole/isa/encoding.h"
#include "systole/isa/program.h"

namespace systole::isa {

/// Assembles `text`; errors carry `filename`:line:col.
Program assemble(const IsaConfig& isa, const std::string& text, const std::string& filename);

/// One instruction as assembly text, e.g. "gemm a_row=0, acc_row=16, m=16, accumulate=1 [pop_prev]".
std::string formatInstruction(const IsaConfig& isa, const Instruction& in);

/// The whole program: tensor table, data segments, then one instruction per line.
std::string disassemble(const IsaConfig& isa, const Program& program);

}  // namespace systole::isa
