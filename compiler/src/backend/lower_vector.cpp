// Algorithm: element-wise and pooling operators run on the vector unit over tiles of
// `vector.lanes` channels (scratchpad-only max pooling over full scratchpad rows) and chunks of
// pixels. Inputs arrive by strided DMA per output row run; int8 values are widened into the
// accumulator with their zero point subtracted, combined with vector_add (residual add, pooling
// windows, a tree for global pooling), and requantized once into the output slot. Source rows are
// placed so two-source instructions avoid bank conflicts where the bank count allows it.
#include <algorithm>

#include "context.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

/// Rows between two source blocks of `n` rows such that row i of each falls in different banks.
int64_t conflictFreeStride(int64_t n, int64_t banks) { return banks > 1 && n % banks == 0 ? n + 1 : n; }

void loadRuns(Lowering& L, const std::vector<PixelRun>& chunk, const ActBuffer& in, int64_t c0, int64_t nc, int64_t toRow) {
  for (const PixelRun& run : chunk)
    L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(in.interior(run.y, run.x0)) + c0, toRow + run.offset, run.count, nc, in.C});
}

/// Sums rows [base, base + n) of the accumulator into row `base` with a tree of vector_adds.
void reduceRows(Lowering& L, int64_t base, int64_t n) {
  while (n > 1) {
    const int64_t half = n / 2, upper = n - half;
    L.emit.compute(Semantics::VectorAdd, {base, base, base + upper, half});
    n = upper;
  }
}

std::vector<int32_t> ints(const Node& n, const char* attr) {
  std::vector<int32_t> v;
  for (int64_t x : n.getInts(attr)) v.push_back(static_cast<int32_t>(x));
  if (v.empty()) throw Error("node '" + n.name + "' (" + n.op + "): missing attribute '" + attr + "'");
  return v;
}

int32_t zeroPoint(const Lowering& L, int value) { return L.g.values[static_cast<size_t>(value)].quant->zero_point.at(0); }

}  // namespace

void storeRuns(Lowering& L, const std::vector<PixelRun>& chunk, const ActBuffer& out, int64_t c0, int64_t nc, int64_t fromRow) {
  for (const PixelRun& run : chunk)
    L.emit.store(Semantics::DmaStore, {static_cast<int64_t>(out.interior(run.y, run.x0)) + c0, fromRow + run.offset, run.count, nc, out.C});
}

void emitRescale(Lowering& L, const ActBuffer& in, int64_t inC0, const ActBuffer& out, int64_t outC0, int64_t C, int32_t zIn,
                 int32_t M, int32_t S, int32_t zOut, int32_t lo, int32_t hi) {
  const int64_t lanes = L.p.acc_row_elems;
  const int64_t n = std::min({L.chunk, L.accHalf, L.slotRows});
  bool first = true;
  for (int64_t c0 = 0; c0 < C; c0 += lanes) {
    const int64_t nc = std::min(lanes, C - c0);
    for (const auto& chunk : pixelChunks(in.H, in.W, n)) {
      const int64_t rows = chunkPixels(chunk);
      const int64_t slot = L.loadSlot(L.emit.loadSlot()), acc = L.accRow(static_cast<int>(L.accHalfIndex++ % 2));
      if (first) loadScales(L, {M}, {S}, L.scaleBase);
      first = false;
      loadRuns(L, chunk, in, inC0 + c0, nc, slot);
      L.emit.compute(Semantics::VectorWiden, {slot, acc, rows, zIn, 1});
      const int out_ = L.emit.outSlot();
      L.emit.compute(Semantics::Requantize, {acc, L.outSlot(out_), rows, L.scaleBase, zOut, lo, hi});
      L.emit.writesOutput();
      storeRuns(L, chunk, out, outC0 + c0, nc, L.outSlot(out_));
      L.emit.endStep();
    }
  }
}

void lowerRequant(Lowering& L, const Node& n) {
  const ActBuffer& in = L.buffers.at(n.inputs[0]);
  const ActBuffer& out = L.buffers.at(n.outputs[0]);
  const int32_t zIn = zeroPoint(L, n.inputs[0]), zOut = zeroPoint(L, n.outputs[0]);
  if (n.op == "Requant")
    return emitRescale(L, in, 0, out, 0, in.C, zIn, ints(n, "multiplier")[0], ints(n, "shift")[0], zOut, -128, 127);
  // Relu / Clip on int8: an identity rescale (M = 2^30, S = 30 gives x exactly) with the clamp.
  emitRescale(L, in, 0, out, 0, in.C, zIn, 1 << 30, 30, zOut, static_cast<int32_t>(n.getInt("act_min", -128)),
              static_cast<int32_t>(n.getInt("act_max", 127)));
}

void lowerConcat(Lowering& L, const Node& n) {
  const ActBuffer& out = L.buffers.at(n.outputs[0]);
  int64_t offset = 0;
  for (int v : n.inputs) {
    const ActBuffer& in = L.buffers.at(v);
    const int32_t z = zeroPoint(L, v);
    emitRescale(L, in, 0, out, offset, in.C, z, 1 << 30, 30, z, -128, 127);
    L.emit.barrier();  // the next input's scale rows reuse the same accumulator rows
    offset += in.C;
  }
}

void lowerAdd(Lowering& L, const Node& n) {
  const ActBuffer& a = L.buffers.at(n.inputs[0]);
  const ActBuffer& b = L.buffers.at(n.inputs[1]);
  const ActBuffer& y = L.buffers.at(n.outputs[0]);
  const int32_t za = zeroPoint(L, n.inputs[0]), zb = zeroPoint(L, n.inputs[1]), zy = zeroPoint(L, n.outputs[0]);
  const int64_t ma = n.getInt("a_multiplier", 0), mb = n.getInt("b_multiplier", 0);
  const int64_t lanes = L.p.acc_row_elems;
  // Two input blocks per load slot and per accumulator half.
  int64_t rows = std::min({L.chunk, L.slotRows / 2, (L.accHalf - 1) / 2});
  const int64_t spadGap = conflictFreeStride(rows, 1), accGap = conflictFreeStride(rows, L.p.acc_banks);
  bool first = true;
  for (int64_t c0 = 0; c0 < y.C; c0 += lanes) {
    const int64_t nc = std::min(lanes, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      const int64_t m = chunkPixels(chunk);
      const int64_t slot = L.loadSlot(L.emit.loadSlot()), acc = L.accRow(static_cast<int>(L.accHalfIndex++ % 2));
      if (first) loadScales(L, ints(n, "multiplier"), ints(n, "shift"), L.scaleBase);
      first = false;
      loadRuns(L, chunk, a, c0, nc, slot);
      loadRuns(L, chunk, b, c0, nc, slot + spadGap);
      L.emit.compute(Semantics::VectorWiden, {slot, acc, m, za, ma});
      L.emit.compute(Semantics::VectorWiden, {slot + spadGap, acc + accGap, m, zb, mb});
      L.emit.compute(Semantics::VectorAdd, {acc, acc, acc + accGap, m});
      const int out = L.emit.outSlot();
      L.emit.compute(Semantics::Requantize, {acc, L.outSlot(out), m, L.scaleBase, zy, static_cast<int32_t>(n.getInt("act_min", -128)),
                                             static_cast<int32_t>(n.getInt("act_max", 127))});
      L.emit.writesOutput();
      storeRuns(L, chunk, y, c0, nc, L.outSlot(out));
      L.emit.endStep();
    }
  }
  L.layers.back().min_dram_bytes = 3 * y.H * y.W * y.C;
}

namespace {

struct Window {
  int64_t KH, KW, sh, sw, pt, pl;
};

Window windowOf(const Node& n) {
  const auto k = n.getInts("kernel_shape"), s = n.getInts("strides", {1, 1}), p = n.getInts("pads", {0, 0, 0, 0});
  if (k.size() != 2) throw Error("node '" + n.name + "' (" + n.op + "): only 2-D pooling windows are supported");
  if (n.getInt("ceil_mode", 0) != 0 && n.op != "MaxPool")
    throw Error("node '" + n.name + "' (" + n.op + "): ceil_mode=1 is not supported on the NPU");
  return {k[0], k[1], s[0], s[1], p[0], p[1]};
}

/// Loads, for each window offset, the input pixels that offset contributes to each output pixel
/// of the chunk, into consecutive row blocks of the load slot; returns the blocks' first rows.
std::vector<int64_t> loadWindows(Lowering& L, const std::vector<PixelRun>& chunk, const ActBuffer& in, const Window& w,
                                 int64_t c0, int64_t nc, int64_t slot, int64_t gap) {
  std::vector<int64_t> blocks;
  for (int64_t kh = 0; kh < w.KH; ++kh)
    for (int64_t kw = 0; kw < w.KW; ++kw) {
      const int64_t base = slot + static_cast<int64_t>(blocks.size()) * gap;
      for (const PixelRun& run : chunk) {
        const int64_t iy = run.y * w.sh + kh - w.pt + in.halo, ix = run.x0 * w.sw + kw - w.pl + in.halo;
        L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(in.padded(iy, ix)) + c0, base + run.offset, run.count, nc, w.sw * in.C});
      }
      blocks.push_back(base);
    }
  return blocks;
}

}  // namespace

void lowerMaxPool(Lowering& L, const Node& n) {
  const ActBuffer& in = L.buffers.at(n.inputs[0]);
  const ActBuffer& y = L.buffers.at(n.outputs[0]);
  const Window w = windowOf(n);
  const int64_t taps = w.KH * w.KW, width = L.p.spad_row_bytes;
  int64_t rows = std::min(L.chunk, L.slotRows / taps - 1);
  if (rows < 1) throw Error("node '" + n.name + "' (MaxPool): the window does not fit the scratchpad");
  const int64_t gap = conflictFreeStride(rows, L.p.spad_banks);
  for (int64_t c0 = 0; c0 < y.C; c0 += width) {
    const int64_t nc = std::min(width, y.C - c0);
    for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
      const int64_t m = chunkPixels(chunk);
      const auto blocks = loadWindows(L, chunk, in, w, c0, nc, L.loadSlot(L.emit.loadSlot()), gap);
      const int out = L.emit.outSlot();
      const int64_t dst = L.outSlot(out);
      L.emit.compute(Semantics::VectorMax, {dst, blocks[0], blocks.size() > 1 ? blocks[1] : blocks[0], m});
      for (size_t k = 2; k < blocks.size(); ++k) L.emit.compute(Semantics::VectorMax, {dst, dst, blocks[k], m});
      L.emit.writesOutput();
      storeRuns(L, chunk, y, c0, nc, dst);
      L.emit.endStep();
    }
  }
  L.layers.back().min_dram_bytes = in.H * in.W * in.C + y.H * y.W * y.C;
}

void lowerAveragePool(Lowering& L, const Node& n) {
  const ActBuffer& in = L.buffers.at(n.inputs[0]);
  const ActBuffer& y = L.buffers.at(n.outputs[0]);
  const int32_t zx = zeroPoint(L, n.inputs[0]), zy = zeroPoint(L, n.outputs[0]);
  const int64_t lanes = L.p.acc_row_elems;
  const bool global = n.op == "GlobalAveragePool";
  bool first = true;
  if (global) {
    // One output pixel per channel tile: widen chunks of input pixels, sum them by a tree, and
    // accumulate the chunk sums in row `acc` of a fixed accumulator region.
    const int64_t rows = std::min({L.slotRows, L.accHalf - 1, L.chunk});
    const int64_t acc = L.accRow(0);
    for (int64_t c0 = 0; c0 < in.C; c0 += lanes) {
      const int64_t nc = std::min(lanes, in.C - c0);
      const auto chunks = pixelChunks(in.H, in.W, rows);
      for (size_t ci = 0; ci < chunks.size(); ++ci) {
        const int64_t m = chunkPixels(chunks[ci]);
        const int64_t slot = L.loadSlot(L.emit.loadSlot());
        if (first) loadScales(L, ints(n, "multiplier"), ints(n, "shift"), L.scaleBase);
        first = false;
        loadRuns(L, chunks[ci], in, c0, nc, slot);
        const int64_t base = ci == 0 ? acc : acc + 1;
        L.emit.compute(Semantics::VectorWiden, {slot, base, m, zx, 1});
        reduceRows(L, base, m);
        if (ci > 0) L.emit.compute(Semantics::VectorAdd, {acc, acc, acc + 1, 1});
        if (ci + 1 == chunks.size()) {
          const int out = L.emit.outSlot();
          L.emit.compute(Semantics::Requantize, {acc, L.outSlot(out), 1, L.scaleBase, zy, -128, 127});
          L.emit.writesOutput();
          L.emit.store(Semantics::DmaStore, {static_cast<int64_t>(y.interior(0, 0)) + c0, L.outSlot(out), 1, nc, y.C});
        }
        L.emit.endStep();
      }
    }
  } else {
    const Window w = windowOf(n);
    const int64_t taps = w.KH * w.KW;
    const int64_t rows = std::min({L.chunk, L.slotRows / taps - 1, (L.accHalf - 1) / 2});
    if (rows < 1) throw Error("node '" + n.name + "' (AveragePool): the window does not fit the scratchpad");
    const int64_t gap = conflictFreeStride(rows, L.p.spad_banks), accGap = conflictFreeStride(rows, L.p.acc_banks);
    for (int64_t c0 = 0; c0 < y.C; c0 += lanes) {
      const int64_t nc = std::min(lanes, y.C - c0);
      for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
        const int64_t m = chunkPixels(chunk);
        const int64_t acc = L.accRow(static_cast<int>(L.accHalfIndex++ % 2));
        const int64_t slot = L.loadSlot(L.emit.loadSlot());
        if (first) loadScales(L, ints(n, "multiplier"), ints(n, "shift"), L.scaleBase);
        first = false;
        const auto blocks = loadWindows(L, chunk, in, w, c0, nc, slot, gap);
        L.emit.compute(Semantics::VectorWiden, {blocks[0], acc, m, zx, 1});
        for (size_t k = 1; k < blocks.size(); ++k) {
          L.emit.compute(Semantics::VectorWiden, {blocks[k], acc + accGap, m, zx, 1});
          L.emit.compute(Semantics::VectorAdd, {acc, acc, acc + accGap, m});
        }
        const int out = L.emit.outSlot();
        L.emit.compute(Semantics::Requantize, {acc, L.outSlot(out), m, L.scaleBase, zy, -128, 127});
        L.emit.writesOutput();
        storeRuns(L, chunk, y, c0, nc, L.outSlot(out));
        L.emit.endStep();
      }
    }
  }
  L.layers.back().min_dram_bytes = in.H * in.W * in.C + y.H * y.W * y.C;
}

}  // namespace systole::compiler
