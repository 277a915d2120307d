// Algorithm: a LayerNormalization over the last axis of a matrix runs on the vector unit, chunk of
// rows by chunk of rows, each row's C elements as ceil(C / lanes) tiles side by side (the int8 kernel in
// ops/normalization.cpp is the same computation, instruction for instruction; a ragged row's last
// tile has its padding lanes zeroed, by a vector_mul with a 0/1 row, in X and in D):
//   1. -sum X: the tiles widened with multiplier -1 and added, vector_reduce (sum);
//   2. per tile: D = C X - sum X (widened with multiplier C, plus the negated sum), kept in the
//      accumulator, and D' = requantize(D / 2C) into the tile's scratchpad rows;
//   3. V = sum D'^2 (widen, vector_mul, vector_add, vector_reduce) plus epsilon (a broadcast row),
//      R = vector_recip (op 1: 2^k / sqrt(V));
//   4. per tile: D R requantized with each channel's gamma multiplier (t), widened by 256, plus
//      each channel's beta (a broadcast row), requantized to the output, stored.
// The accumulation tile holds the negated sum, a work block, V, epsilon, each tile's D and beta
// rows, the per-channel gamma scale rows (one pair per tile) and a ragged row's keep row, at a
// bank-conflict-free stride.
#include <algorithm>

#include "operator_registry.h"
#include "systole/isa/diagnostic.h"
#include "tile_context.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

/// A broadcast int32 row of the first `valid` lanes 1, the rest 0 (a ragged row's keep lanes).
Operand keepLanesRow(TileContext& T, int64_t lanes, int64_t valid) {
  std::vector<int32_t> keep(static_cast<size_t>(lanes), 0);
  std::fill_n(keep.begin(), valid, 1);
  return T.addConstant(int32Bytes(keep), "keep lanes");
}

}  // namespace

void tileLayerNorm(TileContext& T, const Node& n) {
  const ActBuffer& x = T.buffer(n.inputs[0]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const OnChipLayout& l = T.layout();
  const int64_t lanes = T.p.acc_row_elems, tiles = (x.C + lanes - 1) / lanes, accBytes = T.p.acc_row_bytes;
  const int64_t valid = x.C - (tiles - 1) * lanes;  // the last tile's lanes
  const bool ragged = valid < lanes;
  // (not a structured binding: the lambdas below capture the strides, which clang before 16 refuses)
  const RowBlocks blocks = rowBlocks(T, n, tiles, tiles, 0, 2 * tiles + 4 + (ragged ? 1 : 0), 2 * tiles);
  const int64_t rows = blocks.rows, sg = blocks.spad_gap, ag = blocks.acc_gap;
  const int32_t zx = T.zeroPoint(n.inputs[0]), zy = T.zeroPoint(n.outputs[0]);
  const auto C = static_cast<int32_t>(x.C);
  const auto k = static_cast<int32_t>(n.getInt("rsqrt_shift", 0));
  const Operand beta = T.addConstant(int32Bytes(int32s(n, "beta_q")), "beta");
  const Operand epsilon = T.addConstant(
      int32Bytes(std::vector<int32_t>(static_cast<size_t>(lanes), static_cast<int32_t>(n.getInt("epsilon_q", 1)))),
      "epsilon");
  const Operand keepRow = ragged ? keepLanesRow(T, lanes, valid) : Operand{};
  const int64_t statsScales = l.scale_base, outScales = l.scale_base + 2;
  T.layer().loops = "row chunks of <= " + std::to_string(rows) + " x " + std::to_string(tiles) +
                    " tiles: sum, deviations, variance, reciprocal square root, gamma, beta";
  const auto tile = [&](int64_t t) { return T.loadSlot(t * sg); };
  bool first = true;
  for (const auto& chunk : pixelChunks(y.H, y.W, rows)) {
    const int64_t m = chunkPixels(chunk);
    const Operand acc = T.newAccTile(), negSum = acc, work = acc + ag, var = acc + 2 * ag, eps = acc + 3 * ag;
    const auto dev = [&](int64_t t) { return acc + (4 + t) * ag; };
    const auto shift = [&](int64_t t) { return acc + (4 + tiles + t) * ag; };
    // The gamma scale rows last: they are the accumulator's extra rows beyond the blocks.
    const Operand keep = acc + (4 + 2 * tiles) * ag, gammaScales = acc + (4 + 2 * tiles + (ragged ? 1 : 0)) * ag;
    // Zeroes a ragged row's padding lanes of the last tile's block b.
    const auto keepValid = [&](int64_t t, Operand b) {
      if (ragged && t == tiles - 1) T.compute(Semantics::VectorMul, {b, b, keep, m});
    };
    if (first) {
      loadScales(T, {static_cast<int32_t>(n.getInt("stats_multiplier", 0))},
                 {static_cast<int32_t>(n.getInt("stats_shift", 0))}, statsScales);
      loadScales(T, int32s(n, "multiplier"), int32s(n, "shift"), outScales);
    }
    first = false;
    loadScales(T, int32s(n, "gamma_multiplier"), int32s(n, "gamma_shift"), gammaScales);
    T.load(Semantics::DmaLoadAcc, {epsilon, eps, m, accBytes, 0});
    if (ragged) T.load(Semantics::DmaLoadAcc, {keepRow, keep, m, accBytes, 0});
    for (int64_t t = 0; t < tiles; ++t) {
      T.load(Semantics::DmaLoadAcc, {beta + t * accBytes, shift(t), m, accBytes, 0});
      loadRuns(T, chunk, x, t * lanes, std::min(lanes, x.C - t * lanes), tile(t));
    }
    for (int64_t t = 0; t < tiles; ++t) {
      T.compute(Semantics::VectorWiden, {tile(t), t == 0 ? negSum : work, m, zx, -1});
      keepValid(t, t == 0 ? negSum : work);
      if (t > 0) T.compute(Semantics::VectorAdd, {negSum, negSum, work, m});
    }
    T.compute(Semantics::VectorReduce, {negSum, negSum, m, 0});
    for (int64_t t = 0; t < tiles; ++t) {
      T.compute(Semantics::VectorWiden, {tile(t), dev(t), m, zx, C});
      T.compute(Semantics::VectorAdd, {dev(t), dev(t), negSum, m});
      keepValid(t, dev(t));
      T.compute(Semantics::Requantize, {dev(t), tile(t), m, statsScales, 0, T.actMin, T.actMax});
      T.compute(Semantics::VectorWiden, {tile(t), work, m, 0, 1});
      T.compute(Semantics::VectorMul, {t == 0 ? var : work, work, work, m});
      if (t > 0) T.compute(Semantics::VectorAdd, {var, var, work, m});
    }
    T.compute(Semantics::VectorReduce, {var, var, m, 0});
    T.compute(Semantics::VectorAdd, {var, var, eps, m});
    T.compute(Semantics::VectorRecip, {var, var, m, k, 1});
    for (int64_t t = 0; t < tiles; ++t) {
      T.compute(Semantics::VectorMul, {dev(t), dev(t), var, m});
      T.compute(Semantics::Requantize, {dev(t), tile(t), m, gammaScales + 2 * t, 0, T.actMin, T.actMax});
      T.compute(Semantics::VectorWiden, {tile(t), work, m, 0, 256});
      T.compute(Semantics::VectorAdd, {work, work, shift(t), m});
      T.compute(Semantics::Requantize, {work, T.outSlot(t * rows), m, outScales, zy, T.actMin, T.actMax});
    }
    T.writesOutput();
    for (int64_t t = 0; t < tiles; ++t)
      storeRuns(T, chunk, y, t * lanes, std::min(lanes, x.C - t * lanes), T.outSlot(t * rows));
    T.endStep(chunkLabel(0, x.C, chunk));
  }
  T.layer().min_dram_bytes = 2 * x.H * x.W * x.C + 12 * x.C;
}

}  // namespace systole::compiler
