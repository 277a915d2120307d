// Algorithm: one case per semantics class, counting the rows the functional model touches times
// the bytes of each (scratchpad rows of spad_row_bytes int8, accumulator rows of acc_row_bytes
// int32, vector lanes = accumulator lanes, int8 vector classes over the scratchpad row).
#include "systole/sim/sram_traffic.h"

#include "systole/isa/config.h"

namespace systole::sim {

using isa::Semantics;

SramTraffic sramTraffic(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in) {
  auto op = [&](int k) { return in.operand(d, k); };
  const int64_t S = p.spad_row_bytes, A = p.acc_row_bytes, L = p.vector_lanes, E = p.spad_row_elems;
  SramTraffic t;
  switch (d.semantics) {
    // DMA operands: dram_addr, row, rows, bytes, dram_stride.
    case Semantics::DmaLoad: t.spad_written = op(2) * S; break;
    case Semantics::DmaLoad2d: t.spad_written = op(2) * op(5) * S; break;  // ..., runs, run_stride
    case Semantics::DmaLoadAcc: t.acc_written = op(2) * A; break;
    case Semantics::DmaStore: t.spad_read = op(2) * op(3); break;
    case Semantics::DmaStoreAcc: t.acc_read = op(2) * op(3); break;
    case Semantics::WeightPreload: t.spad_read = p.array_rows * p.array_cols; break;
    case Semantics::MatmulTile: {  // a_row, acc_row, m, accumulate: m rows of K int8 in, m accumulator rows out
      const int64_t m = op(2);
      t.spad_read = m * p.array_rows;
      t.acc_written = m * A;
      if (op(3) != 0) t.acc_read = m * A;
      break;
    }
    case Semantics::MatmulStream: {  // a_row, a_stride, w_row, acc_row, m, k_slices, accumulate: per slice m
                                     // activation rows of K int8 and K weight rows of N int8
      const int64_t m = op(4), slices = op(5);
      t.spad_read = slices * (m * p.array_rows + p.array_rows * p.array_cols);
      t.acc_written = m * A;
      if (op(6) != 0) t.acc_read = m * A;
      break;
    }
    case Semantics::Requantize:  // acc_row, spad_row, rows, scale_row, ...: two scale rows per instruction
      t.acc_read = (op(2) + 2) * A;
      t.spad_written = op(2) * S;
      t.vector_elements = op(2) * L;
      break;
    case Semantics::VectorWiden:  // spad_row, acc_row, rows
      t.spad_read = op(2) * L;
      t.acc_written = op(2) * A;
      t.vector_elements = op(2) * L;
      break;
    case Semantics::VectorAdd:
    case Semantics::VectorMul:  // dst_row, a_row, b_row, rows
      t.acc_read = 2 * op(3) * A;
      t.acc_written = op(3) * A;
      t.vector_elements = op(3) * L;
      break;
    case Semantics::VectorMax:  // dst_row, a_row, b_row, rows
      t.spad_read = 2 * op(3) * E;
      t.spad_written = op(3) * E;
      t.vector_elements = op(3) * E;
      break;
    case Semantics::VectorLut:  // dst_row, src_row, rows, table_row: the 256-entry table is read once
      t.spad_read = op(2) * E + p.lut_rows * S;
      t.spad_written = op(2) * E;
      t.vector_elements = op(2) * E;
      break;
    case Semantics::VectorReduce:  // dst_row, src_row, rows, op
      t.acc_read = op(2) * A;
      t.acc_written = op(2) * A;
      t.vector_elements = op(2) * L;
      break;
    case Semantics::Nop:
    case Semantics::Finish: break;
  }
  return t;
}

}  // namespace systole::sim
