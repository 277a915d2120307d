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
  const int64_t KH0 = s.KH, KW0 = s.KW;  // the model's kernel, before any repacking below
  auto weightOf = [&](int64_t kh, int64_t kw, int64_t ic, int64_t oc) -> int8_t {
    if (!conv) return w.as<int8_t>()[ic * s.OC + oc];
    if (ic / ICg != oc / OCg) return 0;
    return w.as<int8_t>()[((oc * ICg + ic % ICg) * KH0 + kh) * KW0 + kw];
  };
  const int64_t R = L.p.array_rows, Cc = L.p.array_cols;
  const int64_t macsPerPixel = s.OC * ICg * s.KH * s.KW;
  // Few input channels leave most of the array's reduction rows idle. The bytes of a kernel row's
  // taps are contiguous in NHWC (pixels x..x+KW-1, all channels), so fold kw into the reduction:
  // a 1 x (KW * IC) kernel over the same pixels.
  const bool packed = conv && s.group == 1 && s.dw == 1 && s.KW > 1 && s.IC < R;
  const int64_t IC0 = s.IC;
  if (packed) {
    s.IC = s.KW * IC0;
    s.KW = 1;
  }
  auto weight = [&](int64_t kh, int64_t kw, int64_t ic, int64_t oc) -> int8_t {
    return packed ? weightOf(kh, ic / IC0, ic % IC0, oc) : weightOf(kh, kw, ic, oc);
  };
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

  // Weight tiles, R rows of Cc bytes, stored per (output tile j, input tile t) with all taps
  // (kh, kw) in order, so one DMA fetches the tiles of consecutive taps. A (j, t) pair whose tiles
  // are all zero (off the block diagonal of a grouped conv) is skipped.
  const int64_t taps = s.KH * s.KW;
  std::vector<std::vector<std::pair<int64_t, uint64_t>>> inputTiles(static_cast<size_t>(nOc));  // (t, offset)
  std::vector<uint8_t> blob;
  for (int64_t j = 0; j < nOc; ++j)
    for (int64_t t = 0; t < nIc; ++t) {
      std::vector<uint8_t> tiles(static_cast<size_t>(taps * R * Cc), 0);
      bool any = false;
      for (int64_t tap = 0; tap < taps; ++tap)
        for (int64_t k = 0; k < R && t * R + k < s.IC; ++k)
          for (int64_t c = 0; c < Cc && j * Cc + c < s.OC; ++c) {
            const int8_t v = weight(tap / s.KW, tap % s.KW, t * R + k, j * Cc + c);
            tiles[static_cast<size_t>((tap * R + k) * Cc + c)] = static_cast<uint8_t>(v);
            any |= v != 0;
          }
      if (!any) continue;
      inputTiles[static_cast<size_t>(j)].emplace_back(t, blob.size());
      blob.insert(blob.end(), tiles.begin(), tiles.end());
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

  // Output pixels are computed in rows of a "virtual" width VW. For stride 1, VW is the input's
  // padded width: then output pixel p = y * VW + x reads input pixel p + (a constant per tap), so
  // one contiguous DMA per kernel row serves all its taps (each gemm starts kw rows further in),
  // at the price of computing VW - OW unused pixels per row, which are never stored. Otherwise
  // VW = OW and each output row run is fetched by its own strided DMA.
  const bool virtualRows = s.sh == s.sw;  // one stride for rows and columns
  const bool shiftedTaps = virtualRows && s.sw == 1;  // taps of a kernel row share one block
  const int64_t VW = virtualRows ? bx.paddedW() : s.OW;
  const int64_t span = shiftedTaps ? (s.KW - 1) * s.dw : 0;  // extra rows a kernel row's block needs
  const int64_t rowsPerChunk = std::min(L.chunk, L.slotRows - R - span);
  if (rowsPerChunk < 1) throw Error("node '" + n.name + "' (" + n.op + "): the kernel does not fit the scratchpad");
  struct Chunk {
    int64_t first = 0, rows = 0;  // virtual pixels [first, first + rows)
    std::vector<PixelRun> runs;   // the valid output pixels among them
  };
  std::vector<Chunk> chunks;
  const int64_t total = (s.OH - 1) * VW + s.OW;
  for (int64_t p0 = 0; p0 < total; p0 += rowsPerChunk) {
    Chunk c{p0, std::min(rowsPerChunk, total - p0), {}};
    for (int64_t y = p0 / VW; y * VW < p0 + c.rows; ++y) {
      const int64_t x0 = std::max<int64_t>(0, p0 - y * VW), x1 = std::min<int64_t>(s.OW, p0 + c.rows - y * VW);
      if (x1 > x0) c.runs.push_back({y, x0, x1 - x0, y * VW + x0 - p0});
    }
    if (!c.runs.empty()) chunks.push_back(std::move(c));  // a chunk of unused columns only is skipped
  }
  // The scratchpad rows a step holding taps [a, b) needs: their weight tiles, then activations.
  auto activationRows = [&](int64_t a, int64_t b, int64_t rows) {
    if (!shiftedTaps) return (b - a) * rows;
    int64_t total = 0;
    for (int64_t kh = a / s.KW; kh <= (b - 1) / s.KW; ++kh) {
      const int64_t kw0 = kh == a / s.KW ? a % s.KW : 0, kw1 = kh == (b - 1) / s.KW ? (b - 1) % s.KW : s.KW - 1;
      total += rows + (kw1 - kw0) * s.dw;
    }
    return total;
  };

  int64_t steps = 0;
  for (int64_t j = 0; j < nOc; ++j) {
    const int64_t nc = std::min(Cc, s.OC - j * Cc);
    const auto& tiles = inputTiles[static_cast<size_t>(j)];
    for (const Chunk& chunk : chunks) {
      const int64_t rows = chunk.rows;
      const int64_t accBase = L.accRow(static_cast<int>(L.accHalfIndex++ % 2));
      // Split each input tile's taps into groups that fit one load slot.
      std::vector<std::tuple<int64_t, uint64_t, int64_t, int64_t>> groups;  // (t, tile offset, tap a, tap b)
      std::vector<int64_t> spans;  // input tiles each group covers (more than one only for Gemm/MatMul)
      if (!conv) {
        // A matrix product has one tap: one step takes consecutive input tiles (their weight tiles
        // are adjacent in DRAM), so the DRAM latency is paid per group, not per tile.
        const int64_t actRowsPerTile = rows == 1 ? 1 : rows;
        for (size_t i = 0; i < tiles.size();) {
          size_t k = i + 1;
          while (k < tiles.size() && tiles[k].first == tiles[k - 1].first + 1 &&
                 static_cast<int64_t>(k + 1 - i) * (R + actRowsPerTile) <= L.slotRows)
            ++k;
          groups.emplace_back(tiles[i].first, tiles[i].second, 0, 1);
          spans.push_back(static_cast<int64_t>(k - i));
          i = k;
        }
      } else {
        for (const auto& [t, offset] : tiles)
          for (int64_t a = 0; a < taps;) {
            int64_t b = a + 1;
            while (b < taps && (b + 1 - a) * R + activationRows(a, b + 1, rows) <= L.slotRows) ++b;
            groups.emplace_back(t, offset, a, b);
            spans.push_back(1);
            a = b;
          }
      }
      const size_t count = std::max<size_t>(groups.size(), 1);
      for (size_t g = 0; g < count; ++g, ++steps) {
        const int slot = L.emit.loadSlot();
        const int64_t wRow = L.loadSlot(slot);
        // Scale rows alternate between two pairs by output tile: tile j + 2's load waits (by the
        // slot-release tokens) until tile j's last requantize has run.
        const int64_t scaleRow = L.scaleBase + 2 * (j % 2);
        if (g == 0 && &chunk == &chunks.front()) {
          const auto from = static_cast<ptrdiff_t>(j * Cc), to = static_cast<ptrdiff_t>(j * Cc + nc);
          loadScales(L, {mult.begin() + from, mult.begin() + to}, {shift.begin() + from, shift.begin() + to}, scaleRow);
        }
        if (g == 0)
          L.emit.load(Semantics::DmaLoadAcc, {static_cast<int64_t>(biasAddr) + j * L.p.acc_row_bytes, accBase, rows,
                                              L.p.acc_row_bytes, 0});
        if (!groups.empty() && spans[g] > 1) {
          // Input tiles t .. t + n - 1 of a matrix product: one weight DMA; with a single
          // activation row, one DMA lays it out as n rows of R bytes (the last tile's extra
          // bytes meet zero weight rows).
          const auto [t, offset, a, b] = groups[g];
          const int64_t n = spans[g];
          const int64_t act = wRow + n * R;
          const int64_t base = static_cast<int64_t>(bx.addr) + chunk.first * bx.C;
          L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(weightBase + offset), wRow, n * R, Cc, Cc});
          if (rows == 1) L.emit.load(Semantics::DmaLoad, {base + t * R, act, n, R, R});
          else
            for (int64_t i = 0; i < n; ++i)
              L.emit.load(Semantics::DmaLoad, {base + (t + i) * R, act + i * rows, rows, std::min(R, s.IC - (t + i) * R), bx.C});
          for (int64_t i = 0; i < n; ++i) {
            L.emit.compute(Semantics::WeightPreload, {wRow + i * R});
            L.emit.compute(Semantics::MatmulTile, {act + i * (rows == 1 ? 1 : rows), accBase, rows, 1});
          }
        } else if (!groups.empty()) {
          const auto [t, offset, a, b] = groups[g];
          const int64_t kc = std::min(R, s.IC - t * R);
          L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(weightBase + offset) + a * R * Cc, wRow, (b - a) * R, Cc, Cc});
          int64_t block = wRow + (b - a) * R;
          std::vector<int64_t> tapRow(static_cast<size_t>(b - a));
          if (shiftedTaps) {
            for (int64_t kh = a / s.KW; kh <= (b - 1) / s.KW; ++kh) {
              const int64_t kw0 = kh == a / s.KW ? a % s.KW : 0, kw1 = kh == (b - 1) / s.KW ? (b - 1) % s.KW : s.KW - 1;
              const int64_t start = chunk.first + (kh * s.dh - s.pt + bx.halo) * VW + kw0 * s.dw - s.pl + bx.halo;
              L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(bx.addr) + start * bx.C + t * R, block, rows + (kw1 - kw0) * s.dw,
                                               kc, bx.C});
              for (int64_t kw = kw0; kw <= kw1; ++kw) tapRow[static_cast<size_t>(kh * s.KW + kw - a)] = block + (kw - kw0) * s.dw;
              block += rows + (kw1 - kw0) * s.dw;
            }
          } else if (virtualRows) {
            for (int64_t tap = a; tap < b; ++tap, block += rows) {
              const int64_t start = s.sw * chunk.first + ((tap / s.KW) * s.dh - s.pt + bx.halo) * VW + (tap % s.KW) * s.dw - s.pl + bx.halo;
              L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(bx.addr) + start * bx.C + t * R, block, rows, kc, s.sw * bx.C});
              tapRow[static_cast<size_t>(tap - a)] = block;
            }
          } else {
            for (int64_t tap = a; tap < b; ++tap, block += rows) {
              for (const PixelRun& run : chunk.runs) {
                const int64_t iy = run.y * s.sh + (tap / s.KW) * s.dh - s.pt + bx.halo;
                const int64_t ix = run.x0 * s.sw + (tap % s.KW) * s.dw - s.pl + bx.halo;
                L.emit.load(Semantics::DmaLoad, {static_cast<int64_t>(bx.padded(iy, ix)) + t * R, block + run.offset, run.count, kc,
                                                 s.sw * bx.C});
              }
              tapRow[static_cast<size_t>(tap - a)] = block;
            }
          }
          for (int64_t tap = a; tap < b; ++tap) {
            L.emit.compute(Semantics::WeightPreload, {wRow + (tap - a) * R});
            L.emit.compute(Semantics::MatmulTile, {tapRow[static_cast<size_t>(tap - a)], accBase, rows, 1});
          }
        }
        if (g + 1 == count) {
          const int out = L.emit.outSlot();
          L.emit.compute(Semantics::Requantize, {accBase, L.outSlot(out), rows, scaleRow, zy, lo, hi});
          L.emit.writesOutput();
          storeRuns(L, chunk.runs, by, j * Cc, nc, L.outSlot(out));
        }
        L.emit.endStep();
      }
    }
  }
  LayerReport& r = L.layers.back();
  r.macs = s.OH * s.OW * macsPerPixel;
  r.min_dram_bytes = w.elements() + bx.H * bx.W * bx.C + by.H * by.W * by.C + 4 * s.OC;
  L.tiles += n.name + ": " + n.op + " " + std::to_string(s.OH) + "x" + std::to_string(s.OW) + "x" + std::to_string(s.OC) +
             " <- " + std::to_string(s.IC) + " ch, " + std::to_string(s.KH) + "x" + std::to_string(s.KW) + (virtualRows ? " (virtual rows of " + std::to_string(VW) + ")" : "") + (packed ? " (kw packed into channels)" : "") +
             ": " + std::to_string(nOc) + " output-channel tiles x " + std::to_string(chunks.size()) + " chunks of <= " +
             std::to_string(rowsPerChunk) + " rows, " + std::to_string(steps) + " steps\n";
}

}  // namespace systole::compiler
