// Algorithm: a Softmax over the last axis of a matrix runs on the vector unit, chunk of rows by
// chunk of rows, each row's C elements as C / lanes tiles side by side (the int8 kernel in
// ops/normalization.cpp is the same computation, instruction for instruction):
//   1. the row max: vector_max of the tiles into one (int8), widened, vector_reduce (max);
//   2. per tile: widen with multiplier -1, add the max (the distance to it, >= 0), requantize to
//      the exponential tables' index, two vector_luts (the high and low bytes of 32767 exp(-d)),
//      both widened (x 256, + 128) and added into the tile's exponentials, kept in the
//      accumulator, and added into the row sum;
//   3. vector_reduce (sum) and vector_recip (2^k / sum);
//   4. per tile: the exponentials times the reciprocal, requantized to the output, stored.
// The load slot holds the two tables, the tiles, the max tile and the low bytes; the accumulation
// tile holds the max, a work block, the sum and each tile's exponentials, at a bank-conflict-free
// stride.
#include <algorithm>

#include "operator_registry.h"
#include "systole/isa/diagnostic.h"
#include "tile_context.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

Operand tableConstant(TileContext& T, const Node& n, const char* attr, const std::string& what) {
  std::vector<uint8_t> table;
  for (int64_t v : n.getInts(attr)) table.push_back(static_cast<uint8_t>(static_cast<int8_t>(v)));
  return T.addConstant(std::move(table), what);
}

}  // namespace

void tileSoftmax(TileContext& T, const Node& n) {
  const ActBuffer& x = T.buffer(n.inputs[0]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const OnChipLayout& l = T.layout();
  const int64_t lanes = T.p.acc_row_elems, tiles = x.C / lanes, tableRows = T.p.lut_rows;
  const auto [rows, sg, ag] = rowBlocks(T, n, tiles, tiles + 2, 2 * tableRows, tiles + 3, 0);
  const Operand hiTable = tableConstant(T, n, "table", "exponential table (high bytes)");
  const Operand loTable = tableConstant(T, n, "table_lo", "exponential table (low bytes)");
  const int32_t zx = T.zeroPoint(n.inputs[0]), zy = T.zeroPoint(n.outputs[0]);
  const auto recipShift = static_cast<int32_t>(n.getInt("recip_shift", 0));
  const int64_t indexScales = l.scale_base, outScales = l.scale_base + 2;
  T.layer().loops = "row chunks of <= " + std::to_string(rows) + " x " + std::to_string(tiles) +
                    " tiles: max, exponential tables, sum, reciprocal, scale";
  const auto tile = [&](int64_t t) { return T.loadSlot(2 * tableRows + t * sg); };
  const Operand rowMax = tile(tiles), low = tile(tiles + 1);
  bool first = true;
  for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
    const int64_t m = chunkPixels(chunk);
    const Operand acc = T.newAccTile(), mx = acc, work = acc + ag, sum = acc + 2 * ag;
    const auto exps = [&](int64_t t) { return acc + (3 + t) * ag; };
    if (first) {
      loadScales(T, {static_cast<int32_t>(n.getInt("index_multiplier", 0))},
                 {static_cast<int32_t>(n.getInt("index_shift", 0))}, indexScales);
      loadScales(T, int32s(n, "multiplier"), int32s(n, "shift"), outScales);
    }
    first = false;
    const int64_t width = T.p.spad_row_bytes;
    T.load(Semantics::DmaLoad, {hiTable, T.loadSlot(), tableRows, width, width});
    T.load(Semantics::DmaLoad, {loTable, T.loadSlot(tableRows), tableRows, width, width});
    for (int64_t t = 0; t < tiles; ++t) loadRuns(T, chunk, x, t * lanes, lanes, tile(t));
    Operand maxOf = tile(0);
    if (tiles > 1) {
      maxOf = rowMax;
      T.compute(Semantics::VectorMax, {rowMax, tile(0), tile(1), m});
      for (int64_t t = 2; t < tiles; ++t) T.compute(Semantics::VectorMax, {rowMax, rowMax, tile(t), m});
    }
    T.compute(Semantics::VectorWiden, {maxOf, mx, m, zx, 1});
    T.compute(Semantics::VectorReduce, {mx, mx, m, 1});
    for (int64_t t = 0; t < tiles; ++t) {
      T.compute(Semantics::VectorWiden, {tile(t), work, m, zx, -1});
      T.compute(Semantics::VectorAdd, {work, work, mx, m});
      T.compute(Semantics::Requantize, {work, tile(t), m, indexScales, -128, -128, 127});
      T.compute(Semantics::VectorLut, {low, tile(t), m, T.loadSlot(tableRows)});
      T.compute(Semantics::VectorLut, {tile(t), tile(t), m, T.loadSlot()});
      T.compute(Semantics::VectorWiden, {tile(t), exps(t), m, 0, 256});
      T.compute(Semantics::VectorWiden, {low, work, m, -128, 1});
      if (t == 0) T.compute(Semantics::VectorAdd, {sum, exps(0), work, m});  // the sum starts as tile 0's
      T.compute(Semantics::VectorAdd, {exps(t), exps(t), work, m});
      if (t > 0) T.compute(Semantics::VectorAdd, {sum, sum, exps(t), m});
    }
    T.compute(Semantics::VectorReduce, {sum, sum, m, 0});
    T.compute(Semantics::VectorRecip, {sum, sum, m, recipShift, 0});
    for (int64_t t = 0; t < tiles; ++t) {
      T.compute(Semantics::VectorMul, {work, exps(t), sum, m});
      T.compute(Semantics::Requantize, {work, T.outSlot(t * rows), m, outScales, zy, -128, 127});
    }
    T.writesOutput();
    for (int64_t t = 0; t < tiles; ++t) storeRuns(T, chunk, y, t * lanes, lanes, T.outSlot(t * rows));
    T.endStep(chunkLabel(0, x.C, chunk));
  }
  T.layer().min_dram_bytes = 2 * x.H * x.W * x.C + 512;
}

}  // namespace systole::compiler
