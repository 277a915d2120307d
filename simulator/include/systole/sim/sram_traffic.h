// The on-chip events of one instruction that the energy model prices: bytes read and written in
// the scratchpad and the accumulator, and vector lane-elements, from its semantics class and
// operands. The rule is the functional model's (functional.cpp): a row a unit writes is written
// whole (a DMA load zero-fills the tail, requantize its unused lanes); a row it reads is read for
// the lanes it uses.
#pragma once

#include <cstdint>

#include "systole/isa/encoding.h"

namespace systole::sim {

struct SramTraffic {
  int64_t spad_read = 0, spad_written = 0;  // bytes
  int64_t acc_read = 0, acc_written = 0;    // bytes
  int64_t vector_elements = 0;              // lane-elements the vector unit computes
  int64_t vector_macs = 0;                  // multiply-accumulates the vector unit computes (vector_mac)
};

SramTraffic sramTraffic(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in);

}  // namespace systole::sim
