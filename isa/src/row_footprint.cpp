// Algorithm: one case per semantics class, naming its operands (the order of semantics.cpp). DMA
// rows move `bytes` per row when they leave the chip (a store), whole rows when they arrive (a
// load); weight_preload and the matmuls read K = array.rows lanes per activation row and
// array.cols lanes per weight row; int32 vector classes work on accumulator lanes, the others on
// the scratchpad row's lanes. A scratchpad lane is activation.bits wide, an accumulator lane
// accumulator.bits in the SRAM.
#include "systole/isa/row_footprint.h"

namespace systole::isa {

RowFootprint rowFootprint(const Params& p, const InstrDesc& d, const Instruction& in) {
  constexpr auto kSpad = RowRange::Memory::Scratchpad, kAcc = RowRange::Memory::Accumulator;
  constexpr bool kRead = false, kWrite = true;  // RowAccess::write
  const int64_t S = p.spad_row_bytes, A = p.acc_sram_row_bytes, L = p.vector_lanes, B = p.act_bits / 8;  // B: a lane
  const int64_t K = p.array_rows * B, N = p.array_cols * B, E = p.spad_row_elems;
  auto op = [&](int k) { return in.operand(d, k); };
  RowFootprint f;
  auto add = [&](RowRange::Memory memory, bool write, int64_t row, int64_t rows, int64_t bytes, int64_t runs = 1,
                 int64_t stride = 0) {
    f.accesses[static_cast<size_t>(f.count++)] = {memory, write, row, rows, runs, stride, bytes};
  };
  auto accumulateInto = [&](int64_t row, int64_t rows, bool accumulate) {  // an accumulating product's rows
    add(kAcc, kWrite, row, rows, A);
    if (accumulate) add(kAcc, kRead, row, rows, A);
  };
  switch (d.semantics) {
    case Semantics::DmaLoad:  // DMA: dram_addr, row, rows, bytes, dram_stride (2-D: ..., runs, run_stride)
    case Semantics::DmaLoadInt4: add(kSpad, kWrite, op(1), op(2), S); break;
    case Semantics::DmaLoad2d: add(kSpad, kWrite, op(1), op(2) * op(5), S); break;
    case Semantics::DmaLoadAcc: add(kAcc, kWrite, op(1), op(2), A); break;
    case Semantics::DmaStore: add(kSpad, kRead, op(1), op(2), op(3)); break;
    case Semantics::DmaStoreAcc: add(kAcc, kRead, op(1), op(2), op(3) * p.acc_bits / 32); break;  // int32 lanes out
    case Semantics::WeightPreload: add(kSpad, kRead, op(0), p.array_rows, N); break;              // w_row
    case Semantics::WeightPreloadT: add(kSpad, kRead, op(0), p.array_cols, K); break;
    case Semantics::MatmulTile:
    case Semantics::DepthwiseTile: {  // a_row, acc_row, m, accumulate (depthwise_tile: each window row once)
      const int64_t m = op(2);
      const bool dw = d.semantics == Semantics::DepthwiseTile;
      add(kSpad, kRead, op(0), dw ? depthwiseWindowRows(m, op(4), op(5), op(6), op(7)) : m, dw ? N : K);
      accumulateInto(op(1), m, op(3) != 0);
      break;
    }
    case Semantics::MatmulStream: {  // a_row, a_stride, w_row, acc_row, m, k_slices, accumulate
      const int64_t m = op(4), slices = op(5);
      accumulateInto(op(3), m, op(6) != 0);
      add(kSpad, kRead, op(0), m, K, slices, op(1));                    // activation slices
      add(kSpad, kRead, op(2), p.array_rows, N, slices, p.array_rows);  // weight slices
      break;
    }
    case Semantics::Requantize:  // acc_row, spad_row, rows, scale_row (two rows of scales)
      add(kAcc, kRead, op(0), op(2), A);
      add(kAcc, kRead, op(3), 2, A);
      add(kSpad, kWrite, op(1), op(2), S);
      f.vector_elements = op(2) * L;
      break;
    case Semantics::VectorAdd:
    case Semantics::VectorMul:
    case Semantics::VectorMax: {  // dst_row, a_row, b_row, rows: int32 in the accumulator, max in the scratchpad
      const bool acc = d.semantics != Semantics::VectorMax;
      for (int k : {1, 2}) add(acc ? kAcc : kSpad, kRead, op(k), op(3), acc ? A : S);
      add(acc ? kAcc : kSpad, kWrite, op(0), op(3), acc ? A : S);
      f.vector_elements = op(3) * (acc ? L : E);
      break;
    }
    case Semantics::VectorLut:  // dst_row, src_row, rows, table_row: the table is read once
      add(kSpad, kRead, op(1), op(2), S);
      add(kSpad, kRead, op(3), p.lut_rows, S);
      add(kSpad, kWrite, op(0), op(2), S);
      f.vector_elements = op(2) * E;
      break;
    case Semantics::VectorWiden:    // spad_row, acc_row, rows
    case Semantics::VectorReduce:   // dst_row, src_row, rows, op
    case Semantics::VectorRecip: {  // dst_row, src_row, rows, shift, op
      const bool widen = d.semantics == Semantics::VectorWiden;
      add(widen ? kSpad : kAcc, kRead, op(widen ? 0 : 1), op(2), widen ? L * B : A);
      add(kAcc, kWrite, op(widen ? 1 : 0), op(2), A);
      f.vector_elements = op(2) * L;
      break;
    }
    case Semantics::VectorMac:  // dst_row, src_row, w_row, rows, stride, accumulate: the weight row is read once
      accumulateInto(op(0), op(3), op(5) != 0);
      add(kSpad, kRead, op(1), 1, L * B, op(3), op(4));
      add(kSpad, kRead, op(2), 1, L * B);
      f.vector_macs = op(3) * L;
      break;
    case Semantics::Nop:
    case Semantics::Finish: break;
  }
  return f;
}

}  // namespace systole::isa
