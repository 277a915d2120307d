// Algorithm: element-wise Max and Min of two quantized activations of one shape. The quantizer gives
// both inputs the output's scale and zero point (docs/quantized-ops.md), so the quantized values
// compare as the real ones do. Per tile of channels and chunk of output pixels, both inputs
// arrive by strided DMA in two row blocks of the load slot, placed in different banks, and
//   * Max: one vector_max writes the output slot (scratchpad-row-wide channel tiles);
//   * Min: min(a, b) = a + b - max(a, b), exactly, in the accumulator (vector.lanes channel
//     tiles): vector_max into a third block; the three blocks widened with multipliers 1, 1 and
//     -1 (the zero point subtracted), summed by two vector_adds, and requantized with the identity
//     scale (2^30, shift 30), which adds the zero point back.
#include <algorithm>

#include "operator_registry.h"
#include "systole/isa/diagnostic.h"
#include "tile_context.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

void tileMax(TileContext& T, const Node& n) {
  const ActBuffer& a = T.buffer(n.inputs[0]);
  const ActBuffer& b = T.buffer(n.inputs[1]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const int64_t width = T.p.spad_row_elems;
  const int64_t rows = std::min(T.layout().chunk, T.layout().slot_rows / 2 - 1);
  if (rows < 1) throw Error("node '" + n.name + "' (" + n.op + "): its two inputs do not fit the scratchpad");
  const int64_t gap = conflictFreeStride(rows, T.p.spad_banks);
  T.layer().loops = "c / " + std::to_string(width) + " x pixel chunks of <= " + std::to_string(rows) + ": vector_max";
  for (int64_t c0 = 0; c0 < y.C; c0 += width) {
    const int64_t nc = std::min(width, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      const int64_t m = chunkPixels(chunk);
      const Operand slot = T.loadSlot();
      loadRuns(T, chunk, a, c0, nc, slot);
      loadRuns(T, chunk, b, c0, nc, slot + gap);
      T.compute(Semantics::VectorMax, {T.outSlot(), slot, slot + gap, m});
      T.writesOutput();
      storeRuns(T, chunk, y, c0, nc, T.outSlot());
      T.endStep(chunkLabel(c0, nc, chunk));
    }
  }
  T.layer().min_dram_bytes = (a.H * a.W * a.C + b.H * b.W * b.C + y.H * y.W * y.C) * T.lane;
}

void tileMin(TileContext& T, const Node& n) {
  const ActBuffer& a = T.buffer(n.inputs[0]);
  const ActBuffer& b = T.buffer(n.inputs[1]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const OnChipLayout& l = T.layout();
  const int32_t z = T.zeroPoint(n.outputs[0]);  // the inputs' too
  const int64_t lanes = T.p.acc_row_elems;
  // Three input blocks in the load slot, two in each accumulator half.
  const int64_t rows = std::min({l.chunk, l.slot_rows / 3 - 1, (l.acc_half - 1) / 2});
  if (rows < 1) throw Error("node '" + n.name + "' (" + n.op + "): its two inputs do not fit the accumulator");
  const int64_t gap = conflictFreeStride(rows, T.p.spad_banks), accGap = conflictFreeStride(rows, T.p.acc_banks);
  T.layer().loops = "c / lanes x pixel chunks of <= " + std::to_string(rows) +
                    ": vector_max, widen a, b and -max, add, add, requantize (a + b - max)";
  bool first = true;
  const int64_t scaleRow = T.imageScaleRow();
  for (int64_t c0 = 0; c0 < y.C; c0 += lanes) {
    const int64_t nc = std::min(lanes, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      const int64_t m = chunkPixels(chunk);
      const Operand slot = T.loadSlot(), acc = T.newAccTile();
      if (first) loadScales(T, {kIdentityMultiplier}, {kIdentityShift}, scaleRow);  // the identity scale
      first = false;
      loadRuns(T, chunk, a, c0, nc, slot);
      loadRuns(T, chunk, b, c0, nc, slot + gap);
      T.compute(Semantics::VectorMax, {slot + 2 * gap, slot, slot + gap, m});
      T.compute(Semantics::VectorWiden, {slot, acc, m, z, 1});
      T.compute(Semantics::VectorWiden, {slot + gap, acc + accGap, m, z, 1});
      T.compute(Semantics::VectorAdd, {acc, acc, acc + accGap, m});
      T.compute(Semantics::VectorWiden, {slot + 2 * gap, acc + accGap, m, z, -1});
      T.compute(Semantics::VectorAdd, {acc, acc, acc + accGap, m});
      T.compute(Semantics::Requantize, {acc, T.outSlot(), m, scaleRow, z, T.actMin, T.actMax});
      T.writesOutput();
      storeRuns(T, chunk, y, c0, nc, T.outSlot());
      T.endStep(chunkLabel(c0, nc, chunk));
    }
  }
  T.layer().min_dram_bytes = (a.H * a.W * a.C + b.H * b.W * b.C + y.H * y.W * y.C) * T.lane;
}

}  // namespace systole::compiler
