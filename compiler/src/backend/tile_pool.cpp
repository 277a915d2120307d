// Algorithm: pooling runs on the vector unit over chunks of output pixels.
//   * MaxPool: per tile of scratchpad-row-wide channels, one strided DMA per window offset and
//     output row run loads the pixels that offset contributes into its own row block of the load
//     slot; a chain of vector_max folds the blocks into the output slot. Padding comes from the
//     input's halo (filled with -128, or the zero point when a ReLU bounds the values).
//   * AveragePool: per tile of `vector.lanes` channels, the window blocks are widened and summed
//     in the accumulator, then requantized with the 1/(window) scale.
//   * GlobalAveragePool: one output pixel per channel tile: chunks of input pixels are widened,
//     summed by a tree of vector_adds, and accumulated in one fixed accumulator row.
// Row blocks that a two-source instruction reads together are placed in different banks.
#include <algorithm>

#include "operator_registry.h"
#include "systole/isa/diagnostic.h"
#include "tile_context.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

struct Window {
  int64_t KH, KW, sh, sw, pt, pl;
};

Window windowOf(const Node& n) {
  const auto k = n.getInts("kernel_shape"), s = n.getInts("strides", {1, 1}), p = n.getInts("pads", {0, 0, 0, 0});
  if (k.size() != 2) throw Error("node '" + n.name + "' (" + n.op + "): only 2-D pooling windows are supported");
  if (n.getInt("ceil_mode", 0) != 0 && n.op != Op::MaxPool)
    throw Error("node '" + n.name + "' (" + n.op + "): ceil_mode=1 is not supported on the NPU");
  return {k[0], k[1], s[0], s[1], p[0], p[1]};
}

/// Loads, for each window offset, the input pixels that offset contributes to each output pixel
/// of the chunk, into consecutive row blocks of the load slot; returns the blocks' first rows.
std::vector<Operand> loadWindows(TileContext& T, const std::vector<PixelRun>& chunk, const ActBuffer& in,
                                 const Window& w, int64_t c0, int64_t nc, int64_t gap, int64_t shift = 0) {
  std::vector<Operand> blocks;
  for (int64_t kh = 0; kh < w.KH; ++kh)
    for (int64_t kw = 0; kw < w.KW; ++kw) {
      const auto k = static_cast<int64_t>(blocks.size());
      const Operand base = T.loadSlot(k * gap + (k > 0 ? shift : 0));
      loadWindowRuns(T, chunk, in, w.sh, w.sw, kh - w.pt + in.halo, kw - w.pl + in.halo, c0, nc, base);
      blocks.push_back(base);
    }
  return blocks;
}

/// Sums rows [base, base + n) of the accumulator into row `base` with a tree of vector_adds.
void reduceRows(TileContext& T, Operand base, int64_t n) {
  while (n > 1) {
    const int64_t half = n / 2, upper = n - half;
    T.compute(Semantics::VectorAdd, {base, base, base + upper, half});
    n = upper;
  }
}

std::string windowText(const Window& w) {
  return std::to_string(w.KH) + "x" + std::to_string(w.KW) + " window, stride " + std::to_string(w.sh) + "x" +
         std::to_string(w.sw);
}

void tileGlobalAveragePool(TileContext& T, const Node& n) {
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const OnChipLayout& l = T.layout();
  const int32_t zx = T.zeroPoint(n.inputs[0]), zy = T.zeroPoint(n.outputs[0]);
  const int64_t lanes = T.p.acc_row_elems;
  const int64_t rows = std::min({l.slot_rows, l.acc_half - 1, l.chunk});
  const int64_t acc = l.accRow(0);  // a fixed accumulator region: the sum lives across steps
  T.layer().loops =
      "c / lanes x input chunks of <= " + std::to_string(rows) + ": widen, tree sum, accumulate; requantize the last";
  bool first = true;
  const int64_t scaleRow = T.imageScaleRow();
  for (int64_t c0 = 0; c0 < in.C; c0 += lanes) {
    const int64_t nc = std::min(lanes, in.C - c0);
    const auto chunks = pixelChunks(in.H, in.W, rows);
    for (size_t ci = 0; ci < chunks.size(); ++ci) {
      const int64_t m = chunkPixels(chunks[ci]);
      if (first) loadScales(T, int32s(n, "multiplier"), int32s(n, "shift"), scaleRow);
      first = false;
      loadRuns(T, chunks[ci], in, c0, nc, T.loadSlot());
      const int64_t base = ci == 0 ? acc : acc + 1;
      T.compute(Semantics::VectorWiden, {T.loadSlot(), base, m, zx, 1});
      reduceRows(T, base, m);
      if (ci > 0) T.compute(Semantics::VectorAdd, {acc, acc, acc + 1, 1});
      if (ci + 1 == chunks.size()) {
        T.compute(Semantics::Requantize, {acc, T.outSlot(), 1, scaleRow, zy, T.actMin, T.actMax});
        T.writesOutput();
        T.store(Semantics::DmaStore, {y.interior(0, 0) + c0, T.outSlot(), 1, nc, y.pixelLanes()});
      }
      T.endStep(chunkLabel(c0, nc, chunks[ci]));
    }
  }
  T.layer().min_dram_bytes = (in.H * in.W * in.C + y.H * y.W * y.C) * T.lane;
}

}  // namespace

void tileMaxPool(TileContext& T, const Node& n) {
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const Window w = windowOf(n);
  const int64_t taps = w.KH * w.KW, width = T.p.spad_row_elems;
  // The chain maxes every block into block 0, then block 0 and the last one into the output slot:
  // blocks 1.. start one row past a multiple of the bank count from block 0, so no vector_max
  // reads two rows of one bank (a conflict costs scratchpad.conflict_cycles a row).
  const int64_t banks = T.p.spad_banks;
  const int64_t rows = std::min(T.layout().chunk, (T.layout().slot_rows - 1) / taps / banks * banks);
  if (rows < 1) throw Error("node '" + n.name + "' (MaxPool): the window does not fit the scratchpad");
  const int64_t gap = (rows + banks - 1) / banks * banks, shift = banks > 1 ? 1 : 0;
  T.layer().loops = "c / " + std::to_string(width) + " x pixel chunks of <= " + std::to_string(rows) + ": " +
                    windowText(w) + ", vector_max chain";
  for (int64_t c0 = 0; c0 < y.C; c0 += width) {
    const int64_t nc = std::min(width, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      const int64_t m = chunkPixels(chunk);
      const auto blocks = loadWindows(T, chunk, in, w, c0, nc, gap, shift);
      const Operand dst = T.outSlot();
      for (size_t k = 1; k + 1 < blocks.size(); ++k)
        T.compute(Semantics::VectorMax, {blocks[0], blocks[0], blocks[k], m});
      T.compute(Semantics::VectorMax, {dst, blocks[0], blocks.back(), m});
      T.writesOutput();
      storeRuns(T, chunk, y, c0, nc, dst);
      T.endStep(chunkLabel(c0, nc, chunk));
    }
  }
  T.layer().min_dram_bytes = (in.H * in.W * in.C + y.H * y.W * y.C) * T.lane;
}

void tileAveragePool(TileContext& T, const Node& n) {
  if (n.op == Op::GlobalAveragePool) return tileGlobalAveragePool(T, n);
  const ActBuffer& in = T.buffer(n.inputs[0]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const OnChipLayout& l = T.layout();
  const int32_t zx = T.zeroPoint(n.inputs[0]), zy = T.zeroPoint(n.outputs[0]);
  const int64_t lanes = T.p.acc_row_elems;
  const Window w = windowOf(n);
  const int64_t rows = std::min({l.chunk, l.slot_rows / (w.KH * w.KW) - 1, (l.acc_half - 1) / 2});
  if (rows < 1) throw Error("node '" + n.name + "' (AveragePool): the window does not fit the scratchpad");
  const int64_t gap = conflictFreeStride(rows, T.p.spad_banks), accGap = conflictFreeStride(rows, T.p.acc_banks);
  T.layer().loops =
      "c / lanes x pixel chunks of <= " + std::to_string(rows) + ": " + windowText(w) + ", widen and add, requantize";
  bool first = true;
  const int64_t scaleRow = T.imageScaleRow();
  for (int64_t c0 = 0; c0 < y.C; c0 += lanes) {
    const int64_t nc = std::min(lanes, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      const int64_t m = chunkPixels(chunk);
      const Operand acc = T.newAccTile();
      if (first) loadScales(T, int32s(n, "multiplier"), int32s(n, "shift"), scaleRow);
      first = false;
      const auto blocks = loadWindows(T, chunk, in, w, c0, nc, gap);
      T.compute(Semantics::VectorWiden, {blocks[0], acc, m, zx, 1});
      for (size_t k = 1; k < blocks.size(); ++k) {
        T.compute(Semantics::VectorWiden, {blocks[k], acc + accGap, m, zx, 1});
        T.compute(Semantics::VectorAdd, {acc, acc, acc + accGap, m});
      }
      T.compute(Semantics::Requantize, {acc, T.outSlot(), m, scaleRow, zy, T.actMin, T.actMax});
      T.writesOutput();
      storeRuns(T, chunk, y, c0, nc, T.outSlot());
      T.endStep(chunkLabel(c0, nc, chunk));
    }
  }
  T.layer().min_dram_bytes = (in.H * in.W * in.C + y.H * y.W * y.C) * T.lane;
}

}  // namespace systole::compiler
