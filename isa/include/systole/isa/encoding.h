// Table-driven instruction encoding: an instruction is its descriptor index, its dependency-token
// flags and its field values; encode/decode place them at the bit positions the YAML gives.
//
//   bit  0 .. opcode_bits-1           opcode
//   bit  opcode_bits + 0..3           pop_prev, pop_next, push_prev, push_next
//   bit  opcode_bits + 4 ..           fields, at the positions listed in the YAML
//   all other bits                    reserved, zero
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "systole/isa/config.h"

namespace systole::isa {

struct Instruction {
  int desc = 0;        // index into IsaConfig::instructions()
  uint8_t tokens = 0;  // TokenFlag bits
  std::array<int64_t, kMaxFields> fields{};

  /// Value of the semantics class's k-th operand.
  int64_t operand(const InstrDesc& d, int k) const {
    return fields[static_cast<size_t>(d.operand_field[static_cast<size_t>(k)])];
  }
  bool operator==(const Instruction&) const = default;
};

/// Writes the instruction's params().instr_bytes little-endian bytes into `out`. Throws Error if a
/// field value does not fit its width or limit, or a token flag names a missing neighbour queue.
void encode(const IsaConfig& isa, const Instruction& in, std::span<uint8_t> out);

/// Reads one instruction. Throws Error on an unknown opcode or non-zero reserved bits.
Instruction decode(const IsaConfig& isa, std::span<const uint8_t> bytes);

/// Checks that a value fits a field (width, sign and `max`); returns an error message or "".
std::string checkFieldValue(const FieldDesc& f, int64_t value);

/// Checks the token flags against the instruction's queue; returns an error message or "".
std::string checkTokens(const InstrDesc& d, uint8_t tokens);

std::vector<uint8_t> encodeAll(const IsaConfig& isa, std::span<const Instruction> program);
std::vector<Instruction> decodeAll(const IsaConfig& isa, std::span<const uint8_t> code);

/// Cycles the instruction takes by its YAML timing expression, from start to completion.
inline int64_t timingCycles(const IsaConfig& isa, const Instruction& in) {
  return isa.instr(in.desc).cycles.eval(in.fields);
}

/// Cycles the instruction occupies its unit: its `issue` expression (at most its cycles) when it
/// gives one and its unit keeps several in flight (the compute unit, whose hazards the scoreboard
/// in pipeline.h orders, or a DMA unit with dma.outstanding > 1), else its cycles.
inline int64_t occupancyCycles(const IsaConfig& isa, const Instruction& in) {
  const InstrDesc& d = isa.instr(in.desc);
  const int64_t cycles = d.cycles.eval(in.fields);
  if (!d.has_issue || (d.unit != Unit::Compute && isa.params().dma_outstanding <= 1)) return cycles;
  return std::min(cycles, d.issue.eval(in.fields));
}

}  // namespace systole::isa
