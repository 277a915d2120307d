// Algorithm: Conv, Gemm and MatMul become accumulated matmul tiles over shifted windows.
//   * Weights are re-laid at compile time as dense tiles of array.rows x array.cols, one per
//     (kh, kw, input-channel tile, output-channel tile); a grouped or depthwise conv's dense
//     matrix is block-diagonal, and all-zero tiles are skipped.
//   * The input zero point is folded into the bias: sum (x - zx) w = sum x w - zx sum w, with the
//     halo around x filled with zx so padded taps contribute nothing.
//   * For each output-channel tile and chunk of output pixels: broadcast the bias into an
//     accumulator half (stride-0 DMA), then per (kh, kw, input tile) load the weight tile and, per
//     output row run, the input pixels at stride `stride * channels` (implicit im2col: no copy
//     in DRAM), preload and gemm-accumulate; finally requantize and store the chunk.
#include <algorithm>
#include <cstring>

#include "context.h"
#include "systole/isa/arith.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

struct ConvShape {
  int64_t IC = 0, OC = 0, KH = 1, KW = 1, group = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0;
  int64_t OH = 0, OW = 0;
};

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

}  // namespace

void loadScales(Lowering& L, std::vector<int32_t> multipliers, std::vector<int32_t> shifts, int64_t row) {
  // One (multiplier row, shift row) pair per tile of `vector.lanes` channels; a per-tensor scale
  // is the same in every lane.
  const int64_t lanes = L.p.acc_row_elems;
  if (multipliers.size() == 1) {
    multipliers.assign(static_cast<size_t>(lanes), multipliers[0]);
    shifts.assign(static_cast<size_t>(lanes), shifts[0]);
  }
  const int64_t tiles = (static_cast<int64_t>(multipliers.size()) + lanes - 1) / lanes;
  std::vector<int32_t> rows(static_cast<size_t>(2 * tiles * lanes), 0);
  for (size_t c = 0; c < multipliers.size(); ++c) {
    const int64_t tile = static_cast<int64_t>(c) / lanes, lane = static_cast<int64_t>(c) % lanes;
    rows[static_cast<size_t>((2 * tile) * lanes + lane)] = multipliers[c];
    rows[static_cast<size_t>((2 * tile + 1) * lanes + lane)] = shifts[c];
  }
  const uint64_t addr = L.addConstant(bytesOf(rows));
  L.emit.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(addr), row, 2 * tiles, L.p.acc_row_bytes, L.p.acc_row_bytes});
}

void lowerMatmulLike(Lowering& L, const Node& n) {
  const Value& x = L.g.values[static_cast<size_t>(n.inputs[0])];
  const Value& w = L.g.values[static_cast<size_t>(n.inputs[1])];
  const Value* bias = n.inputs.size() > 2 && n.inputs[2] >= 0 ? &L.g.values[static_cast<size_t>(n.inputs[2])] : nullptr;
  const Value& y = L.g.values[static_cast<size_t>(n.outputs[0])];
  const ActBuffer& bx = L.buffers.at(n.inputs[0]);
  const ActBuffer& by = L.buffers.at(n.outputs[0]);
  if (!w.is_constant || w.type != ElemType::Int8) throw Error("node '" + n.name + "' (" + n.op + "): weights must be constant int8");

  ConvShape s;
  const bool conv = n.op == "Conv";
  s.IC = bx.C;
  if (conv) {
    s.OC = w.shape[0];
    s.KH = w.shape[2];
    s.KW = w.shape[3];
    s.group = n.getInt("group", 1);
    const auto strides = n.getInts("strides", {1, 1}), dil = n.getInts("dilations", {1, 1}), pads = n.getInts("pads", {0, 0, 0, 0});
    s.sh = strides[0], s.sw = strides[1], s.dh = dil[0], s.dw = dil[1], s.pt = pads[0], s.pl = pads[1];
  } else {
    s.OC = w.shape[1];  // [K][N]
  }
  s.OH = by.H, s.OW = by.W;
  const int64_t ICg = s.IC / s.group, OCg = s.OC / s.group;
  auto weight = [&](int64_t kh, int64_t kw, int64_t ic, int64_t oc) -> int8_t {
    if (!conv) return w.as<int8_t>()[ic * s.OC + oc];
    if (ic / ICg != oc / OCg) return 0;
    return w.as<int8_t>()[((oc * ICg + ic % ICg) * s.KH + kh) * s.KW + kw];
  };

  const int64_t R = L.p.array_rows, Cc = L.p.array_cols;
  const int64_t nOc = (s.OC + Cc - 1) / Cc, nIc = (s.IC + R - 1) / R;
  const int32_t zx = x.quant->zero_point.at(0), zy = y.quant->zero_point.at(0);

  // Bias with the input zero point folded in, one accumulator row per output-channel tile.
  std::vector<int32_t> biasRows(static_cast<size_t>(nOc * L.p.acc_row_elems), 0);
  for (int64_t oc = 0; oc < s.OC; ++oc) {
    int32_t sumW = 0;
    for (int64_t kh = 0; kh < s.KH; ++kh)
      for (int64_t kw = 0; kw < s.KW; ++kw)
        for (int64_t ic = 0; ic < s.IC; ++ic) sumW = isa::arith::add(sumW, weight(kh, kw, ic, oc));
    const int32_t b = bias ? bias->as<int32_t>()[oc] : 0;
    biasRows[static_cast<size_t>((oc / Cc) * L.p.acc_row_elems + oc % Cc)] = isa::arith::add(b, isa::arith::mul(-zx, sumW));
  }
  const uint64_t biasAddr = L.addConstant(bytesOf(biasRows));

  // Weight tiles, R rows of Cc bytes, the all-zero ones skipped.
  struct Tile {
    int64_t kh, kw, t;
    uint64_t addr;
  };
  std::vector<std::vector<Tile>> tilesOf(static_cast<size_t>(nOc));
  std::vector<uint8_t> blob;
  for (int64_t j = 0; j < nOc; ++j)
    for (int64_t kh = 0; kh < s.KH; ++kh)
      for (int64_t kw = 0; kw < s.KW; ++kw)
        for (int64_t t = 0; t < nIc; ++t) {
          std::vector<uint8_t> tile(static_cast<size_t>(R * Cc), 0);
          bool any = false;
          for (int64_t k = 0; k < R && t * R + k < s.IC; ++k)
            for (int64_t c = 0; c < Cc && j * Cc + c < s.OC; ++c) {
              const int8_t v = weight(kh, kw, t * R + k, j * Cc + c);
              tile[static_cast<size_t>(k * Cc + c)] = static_cast<uint8_t>(v);
              any |= v != 0;
            }
          if (!any) continue;
          tilesOf[static_cast<size_t>(j)].push_back({kh, kw, t, blob.size()});
          blob.insert(blob.end(), tile.begin(), tile.end());
        }
  const uint64_t weightBase = L.addConstant(std::move(blob));

  std::vector<int32_t> mult, shift;
  for (int64_t v : n.getInts("multiplier")) mult.push_back(static_cast<int32_t>(v));
  for (int64_t v : n.getInts("shift")) shift.push_back(static_cast<int32_t>(v));
  if (mult.size() == 1) {
    mult.assign(static_cast<size_t>(s.OC), mult[0]);
    shift.assign(static_cast<size_t>(s.OC), shift[0]);
  }
  if (static_cast<int64_t>(mult.size()) != s.OC) throw Error("node '" + n.name + "': multiplier count differs from output channels");
  const int32_t lo = static_cast<int32_t>(n.getInt("act_min", -128)), hi = static_cast<int32_t>(n.getInt("act_max", 127));

  bool first = true;
  const auto chunks = pixelChunks(s.OH, s.OW, L.chunk);
  for (int64_t j = 0; j < nOc; ++j) {
    const int64_t nc = std::min(Cc, s.OC - j * Cc);
    const auto& tiles = tilesOf[static_cast<size_t>(j)];
    for (const auto& chunk : chunks) {
      const int64_t rows = chunkPixels(chunk);
      const int64_t accBase = L.accRow(static_cast<int>(L.accHalfIndex++ % 2));
      const size_t steps = std::max<size_t>(tiles.size(), 1);
      for (size_t idx = 0; idx < steps; ++idx) {
        const int slot = L.emit.loadSlot();
        const int64_t wRow = L.loadSlot(slot), aRow = wRow + R;
        if (first) {
          loadScales(L, mult, shift, L.scaleBase);
          first = false;
        }
        if (idx == 0)
          L.emit.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(biasAddr) + j * L.p.acc_row_bytes, accBase, rows,
                                              L.p.acc_row_bytes, 0});
        if (!tiles.empty()) {
          const Tile& tile = tiles[idx];
          const int64_t kc = std::min(R, s.IC - tile.t * R);
          L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(weightBase + tile.addr), wRow, R, Cc, Cc});
          for (const PixelRun& run : chunk) {
            const int64_t iy = run.y * s.sh + tile.kh * s.dh - s.pt + bx.halo;
            const int64_t ix = run.x0 * s.sw + tile.kw * s.dw - s.pl + bx.halo;
            L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(bx.padded(iy, ix)) + tile.t * R, aRow + run.offset, run.count,
                                             kc, s.sw * bx.C});
          }
          L.emit.compute(Semantics::WeightPreload, {wRow});
          L.emit.compute(Semantics::MatmulTile, {aRow, accBase, rows, 1});
        }
        if (idx + 1 == steps) {
          const int out = L.emit.outSlot();
          L.emit.compute(Semantics::Requantize, {accBase, L.outSlot(out), rows, L.scaleBase + 2 * j, zy, lo, hi});
          L.emit.writesOutput();
          for (const PixelRun& run : chunk)
            L.emit.store(Semantics::DmaStore, {static_cast<int64_t>(by.interior(run.y, run.x0)) + j * Cc, L.outSlot(out) + run.offset,
                                               run.count, nc, by.C});
        }
        L.emit.endStep();
      }
    }
  }
  LayerReport& r = L.layers.back();
  r.macs = s.OH * s.OW * s.OC * ICg * s.KH * s.KW;
  r.min_dram_bytes = w.elements() + bx.H * bx.W * bx.C + by.H * by.W * by.C + 4 * s.OC;
  L.tiles += n.name + ": " + n.op + " " + std::to_string(s.OH) + "x" + std::to_string(s.OW) + "x" + std::to_string(s.OC) +
             " <- " + std::to_string(s.IC) + " ch, " + std::to_string(s.KH) + "x" + std::to_string(s.KW) + ": " +
             std::to_string(nOc) + " output-channel tiles x " + std::to_string(chunks.size()) + " pixel chunks of <= " +
             std::to_string(L.chunk) + " rows x " + std::to_string(tilesOf.empty() ? 0 : tilesOf[0].size()) +
             " weight tiles\n";
}

}  // namespace systole::compiler
