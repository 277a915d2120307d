// Algorithm: element-wise operators run on the vector unit over tiles of `vector.lanes` channels
// and chunks of pixels. Inputs arrive by strided DMA per output row run; quantized values are widened
// into the accumulator with their zero point subtracted, combined with vector_add where there are
// two sources, and requantized once into the output slot.
//   * Requant / Relu / Clip: one rescaling copy (Relu and Clip: the identity scale M = 1,
//     S = 0 with the clamp).
//   * Concat: one rescaling copy per input into its channel range of the output, or for rows
//     (a class token before the patches) into its row range; a quantized constant input is read from
//     the program's constants.
//   * Add: both inputs widened (each with its own multiplier), added, requantized; either may be
//     a quantized constant of the same shape (a position embedding). Source rows are placed so the two-source
//     vector_add avoids accumulator bank conflicts where it can.
//   * Mul: both inputs widened, multiplied (vector_mul), requantized. A per-channel second input
//     ([N, C, 1, 1], squeeze-and-excitation) is broadcast over the chunk's pixels by a stride-0 DMA.
#include <algorithm>

#include "operator_registry.h"
#include "systole/compiler/float_ops.h"
#include "tile_context.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

void tileRequant(TileContext& T, const Node& n) {
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const ActBuffer& out = T.buffer(n.outputs[0]);
  const int32_t zIn = T.zeroPoint(n.inputs[0]), zOut = T.zeroPoint(n.outputs[0]);
  T.layer().loops = "c / lanes x pixel chunks: widen, requantize";
  if (n.op == Op::Requant)  // per tensor, or per channel (a product with a per-channel constant)
    return emitRescale(T, in, out, {{0, 0, in.C}}, zIn, int32s(n, "multiplier"), int32s(n, "shift"), zOut, T.actMin,
                       T.actMax);
  emitRescale(T, in, 0, out, 0, in.C, zIn, kIdentityMultiplier, kIdentityShift, zOut,
              static_cast<int32_t>(n.getInt("act_min", T.actMin)), static_cast<int32_t>(n.getInt("act_max", T.actMax)));
}

void tileConcat(TileContext& T, const Node& n) {
  const ActBuffer& out = T.buffer(n.outputs[0]);
  const auto& shape = T.g.values[static_cast<size_t>(n.outputs[0])].shape;
  const bool rows = isRowAxis(shape, static_cast<int64_t>(ops::normAxis(n.getInt("axis", 1), shape.size())));
  T.layer().loops = std::string("inputs x c / lanes x pixel chunks: copy into the output's ") +
                    (rows ? "row range" : "channel range");
  int64_t offset = 0;
  for (int v : n.inputs) {
    const ActBuffer in = T.source(v);
    const int32_t z = T.zeroPoint(v);
    if (rows)
      emitRescale(T, in, 0, out.rows(offset, in.W), 0, in.C, z, kIdentityMultiplier, kIdentityShift, z, T.actMin,
                  T.actMax);
    else
      emitRescale(T, in, 0, out, offset, in.C, z, kIdentityMultiplier, kIdentityShift, z, T.actMin, T.actMax);
    T.barrier();  // the next input's scale rows reuse the same accumulator rows
    offset += rows ? in.W : in.C;
  }
}

namespace {

/// Add and Mul: both inputs widened into one accumulation tile (each with its multiplier; b
/// broadcast over the pixels when it has one per channel), combined by `combine`, requantized.
void tileTwoInputs(TileContext& T, const Node& n, Semantics combine, int64_t ma, int64_t mb, const std::string& what) {
  const ActBuffer a = T.source(n.inputs[0]);
  const ActBuffer b = T.source(n.inputs[1]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const OnChipLayout& l = T.layout();
  const bool broadcast = b.H * b.W == 1 && a.H * a.W > 1;
  const int32_t za = T.zeroPoint(n.inputs[0]), zb = T.zeroPoint(n.inputs[1]), zy = T.zeroPoint(n.outputs[0]);
  const int32_t lo = static_cast<int32_t>(n.getInt("act_min", T.actMin)),
                hi = static_cast<int32_t>(n.getInt("act_max", T.actMax));
  const int64_t lanes = T.p.acc_row_elems;
  // Two input blocks per load slot and per accumulator half.
  const int64_t rows = std::min({l.chunk, l.slot_rows / 2, (l.acc_half - 1) / 2});
  if (rows < 1) throw Error("node '" + n.name + "' (" + n.op + "): its two inputs do not fit the accumulator");
  const int64_t spadGap = conflictFreeStride(rows, 1), accGap = conflictFreeStride(rows, T.p.acc_banks);
  T.layer().loops = "c / lanes x pixel chunks of <= " + std::to_string(rows) + ": widen a, widen b" +
                    (broadcast ? " (broadcast per channel)" : "") + ", " + what + ", requantize";
  bool first = true;
  const int64_t scaleRow = T.imageScaleRow();
  for (int64_t c0 = 0; c0 < y.C; c0 += lanes) {
    const int64_t nc = std::min(lanes, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      const int64_t m = chunkPixels(chunk);
      const Operand slot = T.loadSlot(), acc = T.newAccTile();
      if (first) loadScales(T, int32s(n, "multiplier"), int32s(n, "shift"), scaleRow);
      first = false;
      loadRuns(T, chunk, a, c0, nc, slot);
      if (broadcast)
        T.load(Semantics::DmaLoad, {b.interior(0, 0) + c0, slot + spadGap, m, nc, 0});
      else
        loadRuns(T, chunk, b, c0, nc, slot + spadGap);
      T.compute(Semantics::VectorWiden, {slot, acc, m, za, ma});
      T.compute(Semantics::VectorWiden, {slot + spadGap, acc + accGap, m, zb, mb});
      T.compute(combine, {acc, acc, acc + accGap, m});
      T.compute(Semantics::Requantize, {acc, T.outSlot(), m, scaleRow, zy, lo, hi});
      T.writesOutput();
      storeRuns(T, chunk, y, c0, nc, T.outSlot());
      T.endStep(chunkLabel(c0, nc, chunk));
    }
  }
  T.layer().min_dram_bytes = (a.H * a.W * a.C + b.H * b.W * b.C + y.H * y.W * y.C) * T.lane;
}

}  // namespace

void tileAdd(TileContext& T, const Node& n) {
  tileTwoInputs(T, n, Semantics::VectorAdd, n.getInt("a_multiplier", 0), n.getInt("b_multiplier", 0), "add");
}

void tileMul(TileContext& T, const Node& n) { tileTwoInputs(T, n, Semantics::VectorMul, 1, 1, "multiply"); }

}  // namespace systole::compiler
