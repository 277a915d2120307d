// Algorithm: a Softmax over the last axis of a matrix runs on the vector unit, chunk of rows by
// chunk of rows, each row's C elements as ceil(C / lanes) tiles side by side (the int8 kernel in
// ops/normalization.cpp is the same computation, instruction for instruction; a ragged row's
// padding lanes are masked, so they are out of the max and their exponential is the table's last
// entry, 0):
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
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

/// One Softmax layer's places and the instructions of one chunk of rows.
struct SoftmaxTiler {
  TileContext& T;
  const Node& n;
  const ActBuffer &x, &y;
  const bool masked;  // by the model's mask, or the padding lanes of a ragged row
  const int64_t lanes, tiles, tableRows, rows, sg, ag;
  const int32_t zx, zy;
  const int64_t indexScales, outScales;
  Operand acc{}, mx{}, work{}, sum{}, work2{};
  int64_t m = 0;

  Operand tile(int64_t t) const { return T.loadSlot(2 * tableRows + t * sg); }
  Operand rowMax() const { return tile(tiles); }
  Operand low() const { return tile(tiles + 1); }
  Operand maskTile(int64_t t) const { return tile(tiles + 2 + t); }
  Operand exps(int64_t t) const { return acc + (4 + t) * ag; }
  Operand identityScales() const { return acc + (4 + tiles) * ag; }

  /// mx = the row max minus zx, in every lane: vector_max across the tiles, widened, reduced.
  void rowMaxOfAll() {
    Operand maxOf = tile(0);
    if (tiles > 1) {
      maxOf = rowMax();
      T.compute(Semantics::VectorMax, {rowMax(), tile(0), tile(1), m});
      for (int64_t t = 2; t < tiles; ++t) T.compute(Semantics::VectorMax, {rowMax(), rowMax(), tile(t), m});
    }
    T.compute(Semantics::VectorWiden, {maxOf, mx, m, zx, 1});
    T.compute(Semantics::VectorReduce, {mx, mx, m, 1});
  }

  /// The same over the kept elements: per tile, x pushed below -128 where masked, reduced, back to
  /// int8 (clamped) and vector_max across the tiles.
  void rowMaxOfKept() {
    for (int64_t t = 0; t < tiles; ++t) {
      T.compute(Semantics::VectorWiden, {tile(t), work, m, 0, 1});
      T.compute(Semantics::VectorWiden, {maskTile(t), work2, m, 0, -n.getInt("mask_push", 0)});
      T.compute(Semantics::VectorAdd, {work, work, work2, m});
      T.compute(Semantics::VectorReduce, {work, work, m, 1});
      T.compute(Semantics::Requantize, {work, t == 0 ? rowMax() : low(), m, identityScales(), 0, T.actMin, T.actMax});
      if (t > 0) T.compute(Semantics::VectorMax, {rowMax(), rowMax(), low(), m});
    }
    T.compute(Semantics::VectorWiden, {rowMax(), mx, m, zx, 1});
  }

  /// Tile t's exponentials (masked ones 0) into exps(t), and into the row sum.
  void exponentials(int64_t t) {
    T.compute(Semantics::VectorWiden, {tile(t), work, m, zx, -1});
    T.compute(Semantics::VectorAdd, {work, work, mx, m});
    if (masked) {
      T.compute(Semantics::VectorWiden, {maskTile(t), work2, m, 0, n.getInt("mask_push", 0)});
      T.compute(Semantics::VectorAdd, {work, work, work2, m});
    }
    T.compute(Semantics::Requantize, {work, tile(t), m, indexScales, T.actMin, T.actMin, T.actMax});
    T.compute(Semantics::VectorLut, {low(), tile(t), m, T.loadSlot(tableRows)});
    T.compute(Semantics::VectorLut, {tile(t), tile(t), m, T.loadSlot()});
    T.compute(Semantics::VectorWiden, {tile(t), exps(t), m, 0, 256});
    T.compute(Semantics::VectorWiden, {low(), work, m, T.actMin, 1});
    if (t == 0) T.compute(Semantics::VectorAdd, {sum, exps(0), work, m});  // the sum starts as tile 0's
    T.compute(Semantics::VectorAdd, {exps(t), exps(t), work, m});
    if (t > 0) T.compute(Semantics::VectorAdd, {sum, sum, exps(t), m});
  }

  /// Tile t's elements of a row (the last tile of a ragged row has fewer than lanes).
  int64_t tileWidth(int64_t t) const { return std::min(lanes, x.C - t * lanes); }

  /// One chunk of rows, the first of its mask rows `maskRow` (mask rows of tiles * lanes bytes, or one
  /// row broadcast: `maskStride` 0).
  void chunk(const std::vector<PixelRun>& runs, const Operand& tables, const Operand& mask, int64_t maskRow,
             int64_t maskStride) {
    m = chunkPixels(runs);
    acc = T.newAccTile(), mx = acc, work = acc + ag, sum = acc + 2 * ag, work2 = acc + 3 * ag;
    const int64_t width = T.p.spad_row_elems;
    T.load(Semantics::DmaLoad, {tables, T.loadSlot(), 2 * tableRows, width, width});
    for (int64_t t = 0; t < tiles; ++t) loadRuns(T, runs, x, t * lanes, tileWidth(t), tile(t));
    if (masked) {
      loadScales(T, {kIdentityMultiplier}, {kIdentityShift}, identityScales());
      for (int64_t t = 0; t < tiles; ++t)
        T.load(Semantics::DmaLoad, {mask + (maskRow * maskStride + t * lanes), maskTile(t), m, lanes, maskStride});
      rowMaxOfKept();
    } else {
      rowMaxOfAll();
    }
    for (int64_t t = 0; t < tiles; ++t) exponentials(t);
    T.compute(Semantics::VectorReduce, {sum, sum, m, 0});
    T.compute(Semantics::VectorRecip, {sum, sum, m, static_cast<int32_t>(n.getInt("recip_shift", 0)), 0});
    for (int64_t t = 0; t < tiles; ++t) {
      T.compute(Semantics::VectorMul, {work, exps(t), sum, m});
      T.compute(Semantics::Requantize, {work, T.outSlot(t * rows), m, outScales, zy, T.actMin, T.actMax});
    }
    T.writesOutput();
    for (int64_t t = 0; t < tiles; ++t) storeRuns(T, runs, y, t * lanes, tileWidth(t), T.outSlot(t * rows));
    T.endStep(chunkLabel(0, x.C, runs));
  }
};

/// The mask's rows (the model's, or one row of zeros) widened to `paddedC` bytes, the padding lanes 1.
std::vector<uint8_t> paddedMaskRows(const Value* mask, int64_t C, int64_t paddedC) {
  const int64_t rows = mask ? mask->elements() / C : 1;
  std::vector<uint8_t> out(static_cast<size_t>(rows * paddedC), 1);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < C; ++j)
      out[static_cast<size_t>(r * paddedC + j)] = mask ? mask->data[static_cast<size_t>(r * C + j)] : 0;
  return out;
}

SoftmaxTiler softmaxTiler(TileContext& T, const Node& n) {
  const ActBuffer& x = T.buffer(n.inputs[0]);
  const int64_t lanes = T.p.acc_row_elems, tiles = (x.C + lanes - 1) / lanes, tableRows = T.p.lut_rows;
  const bool masked = n.inputs.size() > 1 || x.C % lanes != 0;
  const auto [rows, sg, ag] =
      rowBlocks(T, n, tiles, (masked ? 2 : 1) * tiles + 2, 2 * tableRows, tiles + 4, masked ? 2 : 0);
  return {T,
          n,
          x,
          T.buffer(n.outputs[0]),
          masked,
          lanes,
          tiles,
          tableRows,
          rows,
          sg,
          ag,
          T.zeroPoint(n.inputs[0]),
          T.zeroPoint(n.outputs[0]),
          T.layout().scale_base,
          T.layout().scale_base + 2};
}

}  // namespace

void tileSoftmax(TileContext& T, const Node& n) {
  SoftmaxTiler s = softmaxTiler(T, n);
  // Both tables in one constant, loaded into consecutive rows (high bytes first).
  std::vector<uint8_t> tables(static_cast<size_t>(2 * s.tableRows * T.p.spad_row_elems), 0);
  for (const auto& [attr, at] : {std::pair{"table", int64_t{0}}, std::pair{"table_lo", s.tableRows}}) {
    const std::vector<int64_t> v = n.getInts(attr);
    for (size_t i = 0; i < v.size() && i < 256; ++i)
      tables[static_cast<size_t>(at * T.p.spad_row_elems) + i] = static_cast<uint8_t>(static_cast<int8_t>(v[i]));
  }
  const Operand tableAt = T.addLanes(tables, "exponential tables (high bytes, low bytes)");
  // The mask: int8 rows of whole tiles (the padding lanes masked), repeating every maskRows rows (a
  // chunk stays in one repeat); a ragged row without the model's mask has one row, broadcast.
  const Value* mask = n.inputs.size() > 1 ? &T.g.values[static_cast<size_t>(n.inputs[1])] : nullptr;
  const int64_t maskRows = mask ? mask->elements() / s.x.C : s.y.W, paddedC = s.tiles * s.lanes;
  const Operand maskAt = s.masked ? T.addLanes(paddedMaskRows(mask, s.x.C, paddedC), "mask") : Operand{};
  const int64_t maskStride = mask ? paddedC : 0;
  T.layer().loops = "row chunks of <= " + std::to_string(s.rows) + " x " + std::to_string(s.tiles) +
                    " tiles: " + (s.masked ? "masked " : "") + "max, exponential tables, sum, reciprocal, scale";
  loadScales(T, {static_cast<int32_t>(n.getInt("index_multiplier", 0))},
             {static_cast<int32_t>(n.getInt("index_shift", 0))}, s.indexScales);
  loadScales(T, int32s(n, "multiplier"), int32s(n, "shift"), s.outScales);
  for (int64_t r0 = 0; r0 < s.y.W; r0 += maskRows)
    for (auto runs : pixelChunks(1, std::min(maskRows, s.y.W - r0), s.rows)) {
      const int64_t first = runs.front().x0;
      for (PixelRun& r : runs) r.x0 += r0;
      s.chunk(runs, tableAt, maskAt, first, maskStride);
    }
  T.layer().min_dram_bytes = 2 * s.x.W * s.x.C + 512 + (s.masked ? (mask ? maskRows : 1) * paddedC : 0);
}

}  // namespace systole::compiler
