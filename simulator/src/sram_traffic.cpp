// Algorithm: the bytes of every row the instruction's footprint (isa/row_footprint.h) reads and
// writes, per memory, and the lane-elements its vector work computes.
#include "systole/sim/sram_traffic.h"

#include "systole/isa/row_footprint.h"

namespace systole::sim {

SramTraffic sramTraffic(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in) {
  const isa::RowFootprint f = isa::rowFootprint(p, d, in);
  SramTraffic t;
  for (const isa::RowAccess& a : f) {
    const bool acc = a.memory == isa::RowRange::Memory::Accumulator;
    (acc ? (a.write ? t.acc_written : t.acc_read) : (a.write ? t.spad_written : t.spad_read)) += a.bytes();
  }
  t.vector_elements = f.vector_elements;
  t.vector_macs = f.vector_macs;
  return t;
}

}  // namespace systole::sim
