// Algorithm: a MatMul of two activations (attention's Q K^T and P V), both int8 at zero point 0
// (the quantizer's contract, so sum a b needs no correction), batched over the leading axes. The
// operands are matrices in DRAM: A holds batch x M rows of K, B batch x K rows of N (or, with
// transB, batch x N rows of K). Per batch index, per chunk of output rows, per tile of
// array.cols output columns, one step loads for each of the ceil(K / array.rows) reduction tiles
// the chunk's A rows (that tile's columns) and B's weight tile, preloads it — weight_preload from
// B's rows k, or weight_preload_t from B's rows n with transB — and gemm-accumulates; then it
// requantizes (one multiplier) and stores the chunk's columns. Weight rows that B does not have
// (a last partial tile) are loaded from a constant of zeros, so every row the array reads holds
// data; the A lanes beyond K are zero-filled by the DMA and contribute nothing.
#include <algorithm>

#include "operator_registry.h"
#include "systole/isa/diagnostic.h"
#include "tile_context.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

void tileActivationMatmul(TileContext& T, const Node& n) {
  const auto& a = T.g.values[static_cast<size_t>(n.inputs[0])].shape;
  const auto& b = T.g.values[static_cast<size_t>(n.inputs[1])].shape;
  const bool transB = n.getInt("transB", 0) != 0;
  const size_t r = a.size();
  const int64_t M = a[r - 2], K = a[r - 1], N = transB ? b[r - 2] : b[r - 1];
  const int64_t batch = T.g.values[static_cast<size_t>(n.inputs[0])].elements() / (M * K);
  const ActBuffer& x = T.buffer(n.inputs[0]);
  const ActBuffer& w = T.buffer(n.inputs[1]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const OnChipLayout& l = T.layout();
  const int64_t R = T.p.array_rows, C = T.p.array_cols, kt = ceilDiv(K, R), wRows = transB ? C : R;
  const int64_t rows = std::min({l.slot_rows / kt - wRows, l.chunk, l.acc_half, T.limit(Semantics::MatmulTile, 2)});
  if (rows < 1)
    throw Error("node '" + n.name + "' (MatMul): a reduction of " + std::to_string(K) + " does not fit one load slot");
  const bool partialWeights = transB ? N % C != 0 : K % R != 0;
  const Operand zeros =
      partialWeights ? T.addLanes(std::vector<uint8_t>(static_cast<size_t>(wRows * T.p.spad_row_elems), 0), "zeros")
                     : Operand{};
  const Semantics preload = transB ? Semantics::WeightPreloadT : Semantics::WeightPreload;
  const int32_t zy = T.zeroPoint(n.outputs[0]);
  const auto lo = static_cast<int32_t>(n.getInt("act_min", T.actMin)),
             hi = static_cast<int32_t>(n.getInt("act_max", T.actMax));
  T.layer().loops = "batch " + std::to_string(batch) + " x row chunks of <= " + std::to_string(rows) + " x n / " +
                    std::to_string(C) + " x k / " + std::to_string(R) + ": load A and B tiles, " +
                    (transB ? "transposed preload" : "preload") + ", gemm; requantize";
  bool first = true;
  for (int64_t t = 0; t < batch; ++t)
    for (int64_t m0 = 0; m0 < M; m0 += rows) {
      const int64_t mm = std::min(rows, M - m0);
      for (int64_t n0 = 0; n0 < N; n0 += C) {
        const int64_t nn = std::min(C, N - n0);
        const Operand acc = T.newAccTile();
        if (first) loadScales(T, int32s(n, "multiplier"), int32s(n, "shift"), l.scale_base);
        first = false;
        for (int64_t kb = 0; kb < kt; ++kb) {
          const int64_t k0 = kb * R, kk = std::min(R, K - k0);
          const Operand aRows = T.loadSlot(kb * (rows + wRows)), wTile = aRows + rows;
          loadRuns(T, {{0, t * M + m0, mm, 0}}, x, k0, kk, aRows);
          // B's rows for this tile: k0.. (lanes n0..) or, transposed, n0.. (lanes k0..).
          const int64_t have = transB ? nn : kk;
          if (transB)
            loadRuns(T, {{0, t * N + n0, nn, 0}}, w, k0, kk, wTile);
          else
            loadRuns(T, {{0, t * K + k0, kk, 0}}, w, n0, nn, wTile);
          if (have < wRows)
            T.load(Semantics::DmaLoad, {zeros, wTile + have, wRows - have, T.p.spad_row_elems, T.p.spad_row_elems});
          T.compute(preload, {wTile});
          T.compute(Semantics::MatmulTile, {aRows, acc, mm, kb > 0 ? 1 : 0});
        }
        T.compute(Semantics::Requantize, {acc, T.outSlot(), mm, l.scale_base, zy, lo, hi});
        T.writesOutput();
        storeRuns(T, {{0, t * M + m0, mm, 0}}, y, n0, nn, T.outSlot());
        T.endStep("batch " + std::to_string(t) + ", rows " + std::to_string(m0) + " +" + std::to_string(mm) + ", n [" +
                  std::to_string(n0) + ", " + std::to_string(n0 + nn) + ")");
      }
    }
  T.layer().min_dram_bytes = (x.H * x.W * x.C + w.H * w.W * w.C + y.H * y.W * y.C) * T.lane;
}

}  // namespace systole::compiler
