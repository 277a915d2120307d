// Algorithm: weights are re-laid as dense tiles of array.rows x array.cols, stored per (output
// tile j, input tile t) with all taps (kh, kw) in order, so one DMA fetches the tiles of
// consecutive taps. A grouped or depthwise conv's dense matrix is block-diagonal; a (j, t) pair
// whose tiles are all zero is skipped. Few input channels leave most of the array's reduction
// rows idle: the bytes of a kernel row's taps are contiguous in NHWC (pixels x..x+KW-1, all
// channels), so kw is folded into the reduction, a 1 x (KW * IC) kernel over the same pixels.
// The input zero point is folded into the bias: sum (x - zx) w = sum x w - zx sum w.
#include "matmul_weights.h"

#include "systole/isa/arith.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

ConvShape convShape(const TileContext& T, const Node& n) {
  const Value& w = T.g.values[static_cast<size_t>(n.inputs[1])];
  const ActBuffer& x = T.buffer(n.inputs[0]);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  ConvShape s;
  s.conv = n.op == Op::Conv;
  s.IC = s.IC0 = x.C;
  if (s.conv) {
    s.OC = w.shape[0];
    s.KH = s.KH0 = w.shape[2];
    s.KW = s.KW0 = w.shape[3];
    s.group = n.getInt("group", 1);
    const auto strides = n.getInts("strides", {1, 1}), dil = n.getInts("dilations", {1, 1}),
               pads = n.getInts("pads", {0, 0, 0, 0});
    s.sh = strides[0], s.sw = strides[1], s.dh = dil[0], s.dw = dil[1], s.pt = pads[0], s.pl = pads[1];
  } else {
    s.OC = w.shape[1];  // [K][N]
  }
  s.OH = y.H, s.OW = y.W;
  s.packed = s.conv && s.group == 1 && s.dw == 1 && s.KW > 1 && s.IC < T.p.array_rows;
  if (s.packed) {
    s.IC = s.KW * s.IC0;
    s.KW = 1;
  }
  return s;
}

namespace {

/// The weight at tap (kh, kw) from input channel ic to output channel oc of the (repacked) kernel.
/// (Ungrouped kernels, the common case, take no division: this runs for every weight, twice.)
int8_t weightAt(const Value& w, const ConvShape& s, int64_t kh, int64_t kw, int64_t ic, int64_t oc) {
  if (!s.conv) return w.as<int8_t>()[ic * s.OC + oc];
  if (s.packed) kw = ic / s.IC0, ic %= s.IC0;
  const int64_t ICg = s.IC0 / s.group, OCg = s.OC / s.group;
  if (s.group > 1) {
    if (ic / ICg != oc / OCg) return 0;
    ic %= ICg;
  }
  return w.as<int8_t>()[((oc * ICg + ic) * s.KH0 + kh) * s.KW0 + kw];
}

/// False when no output channel of [oc0, oc1) reads an input channel of [ic0, ic1) (a grouped or
/// depthwise kernel's all-zero tile, skipped without reading it weight by weight).
bool sharesAGroup(const ConvShape& s, int64_t oc0, int64_t oc1, int64_t ic0, int64_t ic1) {
  if (!s.conv || s.packed || s.group <= 1) return true;
  const int64_t ICg = s.IC0 / s.group, OCg = s.OC / s.group;
  return ic0 / ICg <= (oc1 - 1) / OCg && oc0 / OCg <= (ic1 - 1) / ICg;
}

Operand biasConstant(TileContext& T, const Node& n, const Value& w, const ConvShape& s) {
  const Value* bias = n.inputs.size() > 2 && n.inputs[2] >= 0 ? &T.g.values[static_cast<size_t>(n.inputs[2])] : nullptr;
  const int32_t zx = T.zeroPoint(n.inputs[0]);
  const int64_t Cc = T.p.array_cols, nOc = (s.OC + Cc - 1) / Cc;
  std::vector<int32_t> rows(static_cast<size_t>(nOc * T.p.acc_row_elems), 0);
  for (int64_t oc = 0; oc < s.OC; ++oc) {
    int32_t sumW = 0;
    for (int64_t ic = 0; ic < s.IC; ++ic)  // in memory order; the wrapping sum does not depend on it
      for (int64_t kh = 0; kh < s.KH; ++kh)
        for (int64_t kw = 0; kw < s.KW; ++kw) sumW = isa::arith::add(sumW, weightAt(w, s, kh, kw, ic, oc));
    const int32_t b = bias ? bias->as<int32_t>()[oc] : 0;
    rows[static_cast<size_t>((oc / Cc) * T.p.acc_row_elems + oc % Cc)] = isa::arith::add(b, isa::arith::mul(-zx, sumW));
  }
  return T.addConstant(int32Bytes(rows), "bias");
}

/// Rows of `cols` int8 weights (each in [-8, 7]) packed two per byte, a row ceil(cols / 2) bytes.
std::vector<uint8_t> packInt4Rows(const std::vector<uint8_t>& rows, int64_t cols) {
  const int64_t n = static_cast<int64_t>(rows.size()) / cols, packedRow = isa::arith::int4PackedBytes(cols);
  std::vector<uint8_t> packed(static_cast<size_t>(n * packedRow));
  for (int64_t r = 0; r < n; ++r)
    isa::arith::packInt4(reinterpret_cast<const int8_t*>(rows.data() + r * cols), cols, packed.data() + r * packedRow);
  return packed;
}

/// The depthwise mode's tiles: per output tile j, per pass of `kernelRows` kernel rows, one tile
/// whose row t is tap t of the pass (kernel row a + t / KW, column t % KW), channel by column.
std::vector<uint8_t> depthwiseTiles(const TileContext& T, const Value& w, const ConvShape& s, int64_t kernelRows,
                                    MatmulConstants& k) {
  const int64_t R = T.p.array_rows, Cc = T.p.array_cols;
  std::vector<uint8_t> blob;
  for (int64_t j = 0; j < static_cast<int64_t>(k.tiles.size()); ++j) {
    k.tiles[static_cast<size_t>(j)].push_back({j, static_cast<int64_t>(blob.size())});
    for (int64_t a = 0; a < s.KH; a += kernelRows) {
      std::vector<uint8_t> tile(static_cast<size_t>(R * Cc), 0);
      for (int64_t t = 0; t < (std::min(s.KH, a + kernelRows) - a) * s.KW; ++t)
        for (int64_t c = 0; c < Cc && j * Cc + c < s.OC; ++c)
          tile[static_cast<size_t>(t * Cc + c)] =
              static_cast<uint8_t>(weightAt(w, s, a + t / s.KW, t % s.KW, j * Cc + c, j * Cc + c));
      blob.insert(blob.end(), tile.begin(), tile.end());
    }
  }
  return blob;
}

}  // namespace

void WeightTiles::load(TileContext& T, int64_t offset, Operand to, int64_t rows) const {
  const int64_t cols = T.p.array_cols, rowBytes = int4 ? isa::arith::int4PackedBytes(cols) : cols;
  T.load(int4 ? isa::Semantics::DmaLoadInt4 : isa::Semantics::DmaLoad,
         {base + offset / cols * rowBytes, to, rows, cols, rowBytes});
}

MatmulConstants matmulConstants(TileContext& T, const Node& n, const ConvShape& s, int64_t depthwiseRows) {
  const Value& w = T.g.values[static_cast<size_t>(n.inputs[1])];
  const int64_t R = T.p.array_rows, Cc = T.p.array_cols;
  const int64_t nOc = (s.OC + Cc - 1) / Cc, nIc = (s.IC + R - 1) / R, taps = s.KH * s.KW;
  MatmulConstants k;
  k.bias = biasConstant(T, n, w, s);
  k.tiles.resize(static_cast<size_t>(nOc));
  std::vector<uint8_t> blob;
  if (depthwiseRows > 0) blob = depthwiseTiles(T, w, s, depthwiseRows, k);
  for (int64_t j = 0; j < nOc && depthwiseRows == 0; ++j)
    for (int64_t t = 0; t < nIc; ++t) {
      if (!sharesAGroup(s, j * Cc, std::min(s.OC, (j + 1) * Cc), t * R, std::min(s.IC, (t + 1) * R))) continue;
      std::vector<uint8_t> tiles(static_cast<size_t>(taps * R * Cc), 0);
      bool any = false;
      // Taps innermost: they are contiguous in the ONNX kernel [OC][IC][KH][KW] (output channels
      // innermost would read one byte per cache line); the tile itself fits in L1.
      for (int64_t c = 0; c < Cc && j * Cc + c < s.OC; ++c)
        for (int64_t r = 0; r < R && t * R + r < s.IC; ++r)
          for (int64_t tap = 0; tap < taps; ++tap) {
            const int8_t v = weightAt(w, s, tap / s.KW, tap % s.KW, t * R + r, j * Cc + c);
            tiles[static_cast<size_t>((tap * R + r) * Cc + c)] = static_cast<uint8_t>(v);
            any |= v != 0;
          }
      if (!any) continue;
      k.tiles[static_cast<size_t>(j)].push_back({t, static_cast<int64_t>(blob.size())});
      blob.insert(blob.end(), tiles.begin(), tiles.end());
    }
  k.weights.int4 = n.getInt("weight_bits", 8) == 4;
  if (k.weights.int4) blob = packInt4Rows(blob, Cc);
  k.weights.base =
      k.weights.int4 ? T.addConstant(std::move(blob), "int4 weight tiles") : T.addLanes(blob, "weight tiles");

  for (int64_t v : n.getInts("multiplier")) k.multipliers.push_back(static_cast<int32_t>(v));
  for (int64_t v : n.getInts("shift")) k.shifts.push_back(static_cast<int32_t>(v));
  if (k.multipliers.size() == 1) {
    k.multipliers.assign(static_cast<size_t>(s.OC), k.multipliers[0]);
    k.shifts.assign(static_cast<size_t>(s.OC), k.shifts[0]);
  }
  if (static_cast<int64_t>(k.multipliers.size()) != s.OC)
    throw Error("node '" + n.name + "': multiplier count differs from output channels");
  return k;
}

}  // namespace systole::compiler
