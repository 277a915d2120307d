// Algorithm: Conv, Gemm and MatMul become accumulated matmul tiles over shifted windows.
//   * Weights are re-laid at compile time as dense tiles of array.rows x array.cols, one per
//     (kh, kw, input-channel tile, output-channel tile); a grouped or depthwise conv's dense
//     matrix is block-diagonal, and all-zero tiles are skipped (matmul_weights.cpp).
//   * The input zero point is folded into the bias: sum (x - zx) w = sum x w - zx sum w, with the
//     halo around x filled with zx so padded taps contribute nothing.
//   * Loop nest: block of output-channel tiles > chunk of output pixels > group of (input tile,
//     taps) that fits one load slot. Per chunk: broadcast each tile's bias into its part of one
//     accumulation tile (stride-0 DMA); per group load the weight tiles of every output tile of
//     the block and, once, per tap, the input pixels (implicit im2col: no copy in DRAM), preload
//     and gemm-accumulate; after the last group requantize and store. A block holds one output
//     tile, or (a dense layer whose chunk is small enough, layout.oc_block at most) several, so
//     that the input pixels are loaded once per block instead of once per tile: the tiler costs
//     both and keeps the faster.
//   * Output pixels are computed in rows of a "virtual" width VW. With one stride for rows and
//     columns, VW is the input's padded width, so output pixel p = y * VW + x reads input pixel
//     s * p + (a constant per tap): one strided DMA per tap, or for stride 1 one DMA per kernel
//     row serving all its taps (each gemm starts kw rows further in); the VW - OW unused pixels
//     per row are computed but never stored. Otherwise VW = OW ("gathered rows": only the real
//     output pixels) and each output row run is fetched by its own DMA at a stride of s pixels.
//   * A strided convolution (s > 1) computes about s times the pixels it stores in virtual rows,
//     but needs one DMA per tap per chunk; gathered rows need one per tap per output row. The
//     tiler tiles the layer both ways (into a scratch plan) and keeps the one the cost model
//     predicts faster from the YAML (timing expressions, dma.outstanding, queue depths): steps
//     chained as double buffering and the in-order dispatcher run them (predictedCycles).
#include <algorithm>

#include "matmul_weights.h"
#include "operator_registry.h"
#include "systole/compiler/parallel.h"
#include "systole/compiler/quant_math.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/pipeline.h"
#include "tile_context.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

/// A chunk of output pixels in virtual rows.
struct Chunk {
  int64_t first = 0, rows = 0;  // virtual pixels [first, first + rows)
  std::vector<PixelRun> runs;   // the valid output pixels among them
};

/// A step's share of one chunk: input tiles [t, t + span) (more than one only for Gemm/MatMul)
/// and taps [a, b) of their weight tiles, at `offsets` in the weight constant (one per output
/// tile of the block).
struct Group {
  int64_t t = 0;
  std::vector<int64_t> offsets;
  int64_t a = 0, b = 1;
  int64_t span = 1;
  std::vector<int64_t> inputTiles;  // streamed: the span input tiles (each with taps [a, b)), in weight order
};

struct MatmulTiling {
  ConvShape s;
  const ActBuffer* x = nullptr;
  int64_t VW = 0;            // virtual row width
  bool virtualRows = false;  // one stride for rows and columns
  bool shiftedTaps = false;  // stride 1: the taps of a kernel row share one block
  int64_t rowsPerChunk = 0;
  int64_t ocBlock = 1;  // output-channel tiles per accumulation tile
  bool stream = false;  // the config has a matmul_stream: each group's slices stream through one (emitStreamGroup)
  // A depthwise conv in passes of kernel rows (0: weight tiles instead), each on the array's
  // depthwise mode (depthwise_tile) or, with vectorMac, as one vector_mac per tap.
  int64_t dwRows = 0;
  bool vectorMac = false;
  // A strided convolution: the cost model's predicted cycles of both forms (0: not compared).
  int64_t virtualCycles = 0, gatheredCycles = 0;
  // A depthwise conv: the cost model's cycles of each form it was tried in (0: not tried).
  int64_t depthwiseCycles = 0, vectorMacCycles = 0, arrayCycles = 0;
};

std::vector<Chunk> outputChunks(const MatmulTiling& m) {
  std::vector<Chunk> chunks;
  const int64_t total = (m.s.OH - 1) * m.VW + m.s.OW;
  for (int64_t p0 = 0; p0 < total; p0 += m.rowsPerChunk) {
    Chunk c{p0, std::min(m.rowsPerChunk, total - p0), {}};
    for (int64_t y = p0 / m.VW; y * m.VW < p0 + c.rows; ++y) {
      const int64_t x0 = std::max<int64_t>(0, p0 - y * m.VW), x1 = std::min<int64_t>(m.s.OW, p0 + c.rows - y * m.VW);
      if (x1 > x0) c.runs.push_back({y, x0, x1 - x0, y * m.VW + x0 - p0});
    }
    if (!c.runs.empty()) chunks.push_back(std::move(c));  // a chunk of unused columns only is skipped
  }
  return chunks;
}

/// Kernel rows [kh] of taps [a, b): the first and last kw of each.
template <typename F>
void forKernelRows(const ConvShape& s, int64_t a, int64_t b, F&& f) {
  for (int64_t kh = a / s.KW; kh <= (b - 1) / s.KW; ++kh)
    f(kh, kh == a / s.KW ? a % s.KW : 0, kh == (b - 1) / s.KW ? (b - 1) % s.KW : s.KW - 1);
}

/// Scratchpad rows the activations of taps [a, b) of a chunk of `rows` pixels take.
int64_t activationRows(const MatmulTiling& m, int64_t a, int64_t b, int64_t rows) {
  if (!m.shiftedTaps) return (b - a) * rows;
  int64_t total = 0;
  forKernelRows(m.s, a, b, [&](int64_t, int64_t kw0, int64_t kw1) { total += rows + (kw1 - kw0) * m.s.dw; });
  return total;
}

/// Weight tiles (array.rows rows each) one dma_load moves: its `rows` field's limit (at least
/// one: TileContext splits a DMA into pieces the field holds).
int64_t weightTilesPerDma(const TileContext& T) {
  return std::max<int64_t>(1, T.limit(Semantics::DmaLoad, 2) / T.p.array_rows);
}

/// Splits each input tile's work on a chunk into groups that fit one load slot, for output
/// tiles [j0, j0 + J) (which have the same input tiles).
std::vector<Group> groupsFor(const TileContext& T, const MatmulTiling& m, const MatmulConstants& k, int64_t j0,
                             int64_t J, int64_t rows) {
  const int64_t R = T.p.array_rows, slot = T.layout().slot_rows;
  const int64_t maxTiles = weightTilesPerDma(T);
  const auto& tiles = k.tiles[static_cast<size_t>(j0)];
  const auto offsets = [&](size_t i) {
    std::vector<int64_t> o;
    for (int64_t jj = 0; jj < J; ++jj) o.push_back(k.tiles[static_cast<size_t>(j0 + jj)][i].offset);
    return o;
  };
  std::vector<Group> groups;
  if (!m.s.conv) {
    // A matrix product has one tap: one step takes consecutive input tiles (their weight tiles
    // are adjacent in DRAM), so the DRAM latency is paid per group, not per tile.
    const int64_t actRowsPerTile = rows == 1 ? 1 : rows;
    for (size_t i = 0; i < tiles.size();) {
      size_t e = i + 1;
      while (e < tiles.size() && tiles[e].t == tiles[e - 1].t + 1 && static_cast<int64_t>(e + 1 - i) <= maxTiles &&
             static_cast<int64_t>(e + 1 - i) * (J * R + actRowsPerTile) <= slot)
        ++e;
      groups.push_back({tiles[i].t, offsets(i), 0, 1, static_cast<int64_t>(e - i), {}});
      i = e;
    }
    return groups;
  }
  const int64_t taps = m.s.KH * m.s.KW;
  for (size_t i = 0; i < tiles.size(); ++i)
    for (int64_t a = 0; a < taps;) {
      int64_t b = a + 1;
      while (b < taps && b + 1 - a <= maxTiles && (b + 1 - a) * J * R + activationRows(m, a, b + 1, rows) <= slot) ++b;
      groups.push_back({tiles[i].t, offsets(i), a, b, 1, {}});
      a = b;
    }
  return groups;
}

std::vector<Operand> loadTaps(TileContext& T, const MatmulTiling& m, const Group& g, const Chunk& chunk, Operand block,
                              int64_t stride);

// ---- streamed (matmul_stream): one instruction per output tile and array.rows pixels reduces
// every slice (input tile, tap) of a group; the group is as many slices as a load slot holds --

/// Rows from one slice's activations to the next's in a streamed group of chunks of `rows`
/// pixels: the chunk, padded so that (stride - array.rows) is a multiple of the bank count (then
/// every slice's activation and weight rows fall in the banks of its first slice's); a matrix
/// product's single activation row is laid out by one DMA as rows of array.rows bytes (stride 1).
int64_t streamStride(const TileContext& T, const MatmulTiling& m, int64_t rows) {
  if (!m.s.conv && rows == 1) return 1;
  const int64_t banks = T.p.spad_banks;
  return rows + ((T.p.array_rows - rows) % banks + banks) % banks;
}

/// A row between a streamed group's weights and its activations, so that the first activation and
/// weight rows that one matmul_stream reads together lie in different banks (weight slices start
/// array.rows apart: with array.rows a multiple of the banks, all in one bank).
int64_t streamPad(const TileContext& T) { return T.p.spad_banks > 1 && T.p.array_rows % T.p.spad_banks == 0 ? 1 : 0; }

/// The slices (input tile, tap) of output tiles [j0, j0 + J) in groups that each fit one load
/// slot and one matmul_stream (its k_slices field, the weight DMA's rows): whole input tiles with
/// all their taps where one tile's taps fit, else each tile's taps split evenly; groups of about
/// equal size. A matrix product's single activation row is one DMA over consecutive tiles.
std::vector<Group> streamGroupsFor(const TileContext& T, const MatmulTiling& m, const MatmulConstants& k, int64_t j0,
                                   int64_t J, int64_t rows) {
  const int64_t R = T.p.array_rows, taps = m.s.KH * m.s.KW;
  const int64_t maxSlices = std::min({(T.layout().slot_rows - streamPad(T)) / (J * R + streamStride(T, m, rows)),
                                      T.limit(Semantics::MatmulStream, 5), weightTilesPerDma(T)});
  if (maxSlices < 1) throw Error("code generation: one slice of a streamed matmul does not fit a load slot");
  const auto& tiles = k.tiles[static_cast<size_t>(j0)];
  std::vector<Group> groups;
  const auto add = [&](size_t i, size_t e, int64_t a, int64_t b) {
    Group g{tiles[i].t, {}, a, b, static_cast<int64_t>(e - i), {}};
    for (int64_t jj = 0; jj < J; ++jj) g.offsets.push_back(k.tiles[static_cast<size_t>(j0 + jj)][i].offset);
    for (size_t x = i; x < e; ++x) g.inputTiles.push_back(tiles[x].t);
    groups.push_back(std::move(g));
  };
  const auto evenly = [](int64_t n, int64_t most) { return (n + (n + most - 1) / most - 1) / ((n + most - 1) / most); };
  if (taps > maxSlices) {
    const int64_t per = evenly(taps, maxSlices);
    for (size_t i = 0; i < tiles.size(); ++i)
      for (int64_t a = 0; a < taps; a += per) add(i, i + 1, a, std::min(taps, a + per));
    return groups;
  }
  const bool oneDma = !m.s.conv && rows == 1;
  for (size_t i = 0; i < tiles.size();) {
    size_t e = oneDma ? i + 1 : tiles.size();
    while (oneDma && e < tiles.size() && tiles[e].t == tiles[e - 1].t + 1) ++e;
    const auto per = static_cast<size_t>(evenly(static_cast<int64_t>(e - i), maxSlices / taps));
    for (size_t x = i; x < e; x += per) add(x, std::min(e, x + per), 0, taps);
    i = e;
  }
  return groups;
}

/// A streamed group: per output tile of the block one weight DMA (the group's slices are adjacent
/// in the weight constant: tiles of one output tile in input-tile order, taps in order), the
/// slices' activations at streamStride rows apart, and per output tile and array.rows output
/// pixels one matmul_stream over every slice into rows [jj * rows, ...) of `acc`.
void emitStreamGroup(TileContext& T, const MatmulTiling& m, const Group& g, const Chunk& chunk,
                     const WeightTiles& weights, Operand acc) {
  const int64_t R = T.p.array_rows, Cc = T.p.array_cols, rows = chunk.rows, J = static_cast<int64_t>(g.offsets.size());
  const int64_t taps = g.b - g.a, slices = g.span * taps, stride = streamStride(T, m, rows);
  for (int64_t jj = 0; jj < J; ++jj)
    weights.load(T, g.offsets[static_cast<size_t>(jj)] + g.a * R * Cc, T.loadSlot(jj * slices * R), slices * R);
  const Operand act = T.loadSlot(J * slices * R + streamPad(T));
  if (m.s.conv) {
    for (int64_t i = 0; i < g.span; ++i) {
      Group one = g;
      one.t = g.inputTiles[static_cast<size_t>(i)];
      loadTaps(T, m, one, chunk, act + i * taps * stride, stride);
    }
  } else {
    const Operand base = m.x->at(chunk.first * m.x->C);
    if (rows == 1)
      T.load(Semantics::DmaLoad, {base + g.t * R, act, g.span, R, R});
    else
      for (int64_t i = 0; i < g.span; ++i) {
        const int64_t t = g.inputTiles[static_cast<size_t>(i)];
        T.load(Semantics::DmaLoad, {base + t * R, act + i * stride, rows, std::min(R, m.s.IC - t * R), m.x->C});
      }
  }
  const int64_t tile = std::min(R, T.limit(Semantics::MatmulStream, 4));  // output rows one instruction holds
  for (int64_t jj = 0; jj < J; ++jj)
    for (int64_t p0 = 0; p0 < rows; p0 += tile)
      T.compute(Semantics::MatmulStream, {act + p0, stride, T.loadSlot(jj * slices * R), acc + (jj * rows + p0),
                                          std::min(tile, rows - p0), slices, 1});
}

// ---- preloaded weight tiles (weight_preload + matmul_tile) --------------------------------------

/// Input tiles t .. t + n - 1 of a matrix product: one weight DMA per output tile; with a single
/// activation row, one DMA lays it out as n rows of R bytes (the last tile's extra bytes meet
/// zero weight rows). Output tile jj accumulates into rows [jj * rows, ...) of `acc`.
void emitMatrixGroup(TileContext& T, const MatmulTiling& m, const Group& g, const Chunk& chunk,
                     const WeightTiles& weights, Operand acc) {
  const int64_t R = T.p.array_rows, rows = chunk.rows, n = g.span, J = static_cast<int64_t>(g.offsets.size());
  const ActBuffer& x = *m.x;
  const Operand act = T.loadSlot(J * n * R);
  const Operand base = x.at(chunk.first * x.C);
  for (int64_t jj = 0; jj < J; ++jj) weights.load(T, g.offsets[static_cast<size_t>(jj)], T.loadSlot(jj * n * R), n * R);
  if (rows == 1)
    T.load(Semantics::DmaLoad, {base + g.t * R, act, n, R, R});
  else
    for (int64_t i = 0; i < n; ++i)
      T.load(Semantics::DmaLoad,
             {base + (g.t + i) * R, act + i * rows, rows, std::min(R, m.s.IC - (g.t + i) * R), x.C});
  for (int64_t jj = 0; jj < J; ++jj)
    for (int64_t i = 0; i < n; ++i) {
      T.compute(Semantics::WeightPreload, {T.loadSlot((jj * n + i) * R)});
      T.compute(Semantics::MatmulTile, {act + i * (rows == 1 ? 1 : rows), acc + jj * rows, rows, 1});
    }
}

/// Loads the activations of taps [a, b) of a convolution; returns the first row of each tap's block.
std::vector<Operand> loadTaps(TileContext& T, const MatmulTiling& m, const Group& g, const Chunk& chunk, Operand block,
                              int64_t stride) {
  const ConvShape& s = m.s;
  const ActBuffer& x = *m.x;
  const int64_t R = T.p.array_rows, kc = std::min(R, s.IC - g.t * R), rows = chunk.rows;
  std::vector<Operand> tapRow(static_cast<size_t>(g.b - g.a));
  if (m.shiftedTaps) {
    forKernelRows(s, g.a, g.b, [&](int64_t kh, int64_t kw0, int64_t kw1) {
      const int64_t start = chunk.first + (kh * s.dh - s.pt + x.halo) * m.VW + kw0 * s.dw - s.pl + x.halo;
      T.load(Semantics::DmaLoad, {x.at(start * x.C + g.t * R), block, rows + (kw1 - kw0) * s.dw, kc, x.C});
      for (int64_t kw = kw0; kw <= kw1; ++kw)
        tapRow[static_cast<size_t>(kh * s.KW + kw - g.a)] = block + (kw - kw0) * s.dw;
      block = block + (rows + (kw1 - kw0) * s.dw);
    });
  } else if (m.virtualRows) {
    for (int64_t tap = g.a; tap < g.b; ++tap, block = block + stride) {
      const int64_t start =
          s.sw * chunk.first + ((tap / s.KW) * s.dh - s.pt + x.halo) * m.VW + (tap % s.KW) * s.dw - s.pl + x.halo;
      T.load(Semantics::DmaLoad, {x.at(start * x.C + g.t * R), block, rows, kc, s.sw * x.C});
      tapRow[static_cast<size_t>(tap - g.a)] = block;
    }
  } else {
    for (int64_t tap = g.a; tap < g.b; ++tap, block = block + stride) {
      loadWindowRuns(T, chunk.runs, x, s.sh, s.sw, (tap / s.KW) * s.dh - s.pt + x.halo,
                     (tap % s.KW) * s.dw - s.pl + x.halo, g.t * R, kc, block);
      tapRow[static_cast<size_t>(tap - g.a)] = block;
    }
  }
  return tapRow;
}

/// Taps [a, b) of input tile t of a convolution: one weight DMA per output tile, the taps'
/// activations, and per output tile jj a preload + gemm per tap into rows [jj * rows, ...) of `acc`.
void emitConvGroup(TileContext& T, const MatmulTiling& m, const Group& g, const Chunk& chunk,
                   const WeightTiles& weights, Operand acc) {
  const int64_t R = T.p.array_rows, Cc = T.p.array_cols, taps = g.b - g.a, J = static_cast<int64_t>(g.offsets.size());
  for (int64_t jj = 0; jj < J; ++jj)
    weights.load(T, g.offsets[static_cast<size_t>(jj)] + g.a * R * Cc, T.loadSlot(jj * taps * R), taps * R);
  const auto tapRow = loadTaps(T, m, g, chunk, T.loadSlot(J * taps * R), chunk.rows);
  for (int64_t jj = 0; jj < J; ++jj)
    for (int64_t tap = g.a; tap < g.b; ++tap) {
      T.compute(Semantics::WeightPreload, {T.loadSlot((jj * taps + tap - g.a) * R)});
      T.compute(Semantics::MatmulTile, {tapRow[static_cast<size_t>(tap - g.a)], acc + jj * chunk.rows, chunk.rows, 1});
    }
}

// ---- the array's depthwise mode (depthwise_tile): a tap per PE row, a channel per column ------

/// Kernel rows one pass of the depthwise conv `s` takes in `form` (depthwise_tile: its taps fill at
/// most array.rows PE rows, its window the line buffer; vector_mac: its taps are one weight tile's
/// rows), or 0 when the form cannot take the layer: no such instruction, not depthwise, dilated
/// columns, different row and column strides, or fields too narrow. `VW` is the input's padded
/// width, the virtual row.
int64_t depthwiseKernelRows(const TileContext& T, const ConvShape& s, int64_t VW, Semantics form) {
  if (T.isa.bySemantics(form) < 0 || !s.conv || s.packed || s.group != s.IC0 || s.OC != s.IC0 || s.dw != 1 ||
      s.sh != s.sw)
    return 0;
  if (form == Semantics::VectorMac)  // operands: dst_row, src_row, w_row, rows, stride, accumulate
    return s.sw > T.limit(form, 4) ? 0 : std::min(s.KH, T.p.array_rows / s.KW);
  // Operands: a_row, acc_row, m, accumulate, kh, kw, pitch, stride.
  if (s.KW > T.limit(Semantics::DepthwiseTile, 5) || s.dh * VW > T.limit(Semantics::DepthwiseTile, 6) ||
      s.sw > T.limit(Semantics::DepthwiseTile, 7))
    return 0;
  int64_t rows = std::min({s.KH, T.p.array_rows / s.KW, T.limit(Semantics::DepthwiseTile, 4)});
  while (rows > 0 && isa::depthwiseLineRows(rows, s.KW, s.dh * VW) > T.p.array_line_buffer_rows) --rows;
  return rows;
}

/// Kernel rows [a, b) of channel tile t (output tile j = t): the pass's weight tile (row t of it
/// tap t), its window (one DMA of consecutive virtual pixels: the channels of the tile), then a
/// preload and one depthwise_tile, or one vector_mac per tap (its window rows, its weight row),
/// accumulating into `acc`.
void emitDepthwiseGroup(TileContext& T, const MatmulTiling& m, const Group& g, const Chunk& chunk,
                        const WeightTiles& weights, Operand acc) {
  const ConvShape& s = m.s;
  const ActBuffer& x = *m.x;
  const int64_t R = T.p.array_rows, Cc = T.p.array_cols, kh = g.b - g.a, pitch = s.dh * m.VW;
  weights.load(T, g.offsets[0], T.loadSlot(0), m.vectorMac ? kh * s.KW : R);
  const Operand window = T.loadSlot(R);
  const int64_t start = s.sw * chunk.first + (g.a * s.dh - s.pt + x.halo) * m.VW - s.pl + x.halo;
  T.load(Semantics::DmaLoad,
         {x.at(start * x.C + g.t * Cc), window, isa::depthwiseWindowRows(chunk.rows, kh, s.KW, pitch, s.sw),
          std::min(Cc, s.IC - g.t * Cc), x.C});
  if (m.vectorMac) {
    for (int64_t t = 0; t < kh * s.KW; ++t)
      T.compute(Semantics::VectorMac,
                {acc, window + (t / s.KW) * pitch + t % s.KW, T.loadSlot(0) + t, chunk.rows, s.sw, 1});
    return;
  }
  T.compute(Semantics::WeightPreload, {T.loadSlot(0)});
  T.compute(Semantics::DepthwiseTile, {window, acc, chunk.rows, 1, kh, s.KW, pitch, s.sw});
}

/// Output tile j's passes: m.dwRows kernel rows each, one weight tile each (adjacent in DRAM).
std::vector<Group> depthwiseGroupsFor(const TileContext& T, const MatmulTiling& m, const MatmulConstants& k,
                                      int64_t j) {
  const int64_t tile = T.p.array_rows * T.p.array_cols;
  std::vector<Group> groups;
  const int64_t offset = k.tiles[static_cast<size_t>(j)].at(0).offset;
  for (int64_t a = 0, pass = 0; a < m.s.KH; a += m.dwRows, ++pass)
    groups.push_back({j, {offset + pass * tile}, a, std::min(m.s.KH, a + m.dwRows), 1, {}});
  return groups;
}

/// Chunks of at most `limit` of `total` rows, as few as that allows, of equal size but the last.
int64_t balancedChunk(int64_t total, int64_t limit) {
  const int64_t chunks = (total + limit - 1) / limit;
  return (total + chunks - 1) / chunks;
}

MatmulTiling tilingOf(const TileContext& T, const Node& n, const ConvShape& s, bool virtualRows) {
  MatmulTiling m;
  m.x = &T.buffer(n.inputs[0]);
  m.s = s;
  m.virtualRows = virtualRows;
  m.stream = T.isa.bySemantics(Semantics::MatmulStream) >= 0;
  // Streamed slices are a constant stride apart, which shifted taps (blocks per kernel row) are not.
  m.shiftedTaps = m.virtualRows && m.s.sw == 1 && !m.stream;
  m.VW = m.virtualRows ? m.x->paddedW() : m.s.OW;
  const int64_t span = m.shiftedTaps ? (m.s.KW - 1) * m.s.dw  // extra rows a kernel row's block needs
                       : m.stream    ? streamPad(T) + T.p.spad_banks - 1
                                     : 0;  // a streamed slice's padding
  m.rowsPerChunk = std::min(T.layout().chunk, T.layout().slot_rows - T.p.array_rows - span);
  if (m.stream)
    m.rowsPerChunk =
        std::min(m.rowsPerChunk, T.limit(Semantics::MatmulStream, 1) - (T.p.spad_banks - 1));  // a_stride's reach
  if (m.rowsPerChunk < 1) throw Error("node '" + n.name + "' (" + n.op + "): the kernel does not fit the scratchpad");
  m.rowsPerChunk = balancedChunk((m.s.OH - 1) * m.VW + m.s.OW, m.rowsPerChunk);
  return m;
}

/// The tiling of a depthwise `form` (`kernelRows` from depthwiseKernelRows): virtual rows, chunks
/// whose window and weight tile fit one load slot; dwRows 0 when not even one pixel's does.
MatmulTiling depthwiseTiling(const TileContext& T, const Node& n, const ConvShape& s, int64_t kernelRows,
                             Semantics form) {
  MatmulTiling m;
  m.x = &T.buffer(n.inputs[0]);
  m.s = s;
  m.virtualRows = true;
  m.VW = m.x->paddedW();
  const int64_t reach = isa::depthwiseLineRows(kernelRows, s.KW, s.dh * m.VW);  // one output's window
  const int64_t fit = (T.layout().slot_rows - T.p.array_rows - reach) / s.sw + 1;
  m.rowsPerChunk = std::min({T.layout().chunk, fit, T.limit(form, form == Semantics::VectorMac ? 3 : 2)});
  if (m.rowsPerChunk < 1) return m;
  m.dwRows = kernelRows;
  m.vectorMac = form == Semantics::VectorMac;
  m.rowsPerChunk = balancedChunk((s.OH - 1) * m.VW + s.OW, m.rowsPerChunk);
  return m;
}

/// "(predicted cycles: depthwise mode A, vector MACs B, weight tiles C)": the forms compared, or "".
std::string depthwiseCyclesText(const MatmulTiling& m) {
  std::string text;
  for (auto [name, cycles] : {std::pair{"depthwise mode ", m.depthwiseCycles},
                              {"vector MACs ", m.vectorMacCycles},
                              {"weight tiles ", m.arrayCycles}})
    if (cycles > 0) text += (text.empty() ? " (predicted cycles: " : ", ") + std::string(name) + std::to_string(cycles);
  return text.empty() || m.arrayCycles == 0 ? "" : text + ")";
}

std::string loopsText(const MatmulTiling& m, const Node& n, int64_t nOc, size_t chunks) {
  const ConvShape& s = m.s;
  return n.op + " " + std::to_string(s.OH) + "x" + std::to_string(s.OW) + "x" + std::to_string(s.OC) + " <- " +
         std::to_string(s.IC) + " ch, " + std::to_string(s.KH) + "x" + std::to_string(s.KW) +
         (m.virtualRows ? " (virtual rows of " + std::to_string(m.VW) + ")" : "") +
         (!m.virtualRows && s.conv ? " (gathered rows, DMA stride " + std::to_string(s.sw) + " px)" : "") +
         (m.gatheredCycles > 0 ? " (predicted cycles: gathered rows " + std::to_string(m.gatheredCycles) +
                                     ", virtual rows " + std::to_string(m.virtualCycles) + ")"
                               : "") +
         (s.packed ? " (kw packed into channels)" : "") +
         (m.dwRows > 0 ? std::string(m.vectorMac ? " (vector MACs, " : " (depthwise mode, ") +
                             std::to_string(m.dwRows) + " kernel rows per pass)"
                       : "") +
         depthwiseCyclesText(m) + ": " + std::to_string(nOc) + " output-channel tiles" +
         (m.ocBlock > 1 ? " in blocks of " + std::to_string(m.ocBlock) : "") + " x " + std::to_string(chunks) +
         " chunks of <= " + std::to_string(m.rowsPerChunk) + " rows x " + (m.stream ? "streamed " : "") +
         (m.dwRows > 0 ? "passes" : "(input tile, tap) groups");
}

std::string groupLabel(const MatmulTiling& m, int64_t j0, int64_t J, const Chunk& chunk,
                       const std::vector<Group>& groups, size_t g) {
  std::string label =
      (J > 1 ? "oc [" + std::to_string(j0) + ", " + std::to_string(j0 + J) + ")" : "oc " + std::to_string(j0)) +
      ", px [" + std::to_string(chunk.first) + ", " + std::to_string(chunk.first + chunk.rows) + ")";
  if (groups.empty()) return label;
  const Group& gr = groups[g];
  label += gr.span > 1 ? ", ic [" + std::to_string(gr.t) + ", " + std::to_string(gr.t + gr.span) + ")"
                       : ", ic " + std::to_string(gr.t);
  if (gr.b - gr.a > 1 || gr.a > 0)
    label += (m.dwRows > 0 ? ", kernel rows [" : ", taps [") + std::to_string(gr.a) + ", " + std::to_string(gr.b) + ")";
  return label;
}

/// Output tiles [j0, j0 + J) have the same input tiles (a dense layer's do; a grouped one's not).
bool sameInputTiles(const MatmulConstants& k, int64_t j0, int64_t J) {
  for (int64_t jj = 1; jj < J; ++jj) {
    const auto &a = k.tiles[static_cast<size_t>(j0)], &b = k.tiles[static_cast<size_t>(j0 + jj)];
    if (a.size() != b.size() ||
        !std::equal(a.begin(), a.end(), b.begin(), [](const WeightTile& x, const WeightTile& y) { return x.t == y.t; }))
      return false;
  }
  return true;
}

/// The layer's steps in tiling `m`, appended to the layer being tiled.
void emitSteps(TileContext& T, const Node& n, const MatmulTiling& m, const MatmulConstants& k) {
  const ActBuffer& y = T.buffer(n.outputs[0]);
  const int64_t Cc = T.p.array_cols, nOc = (m.s.OC + Cc - 1) / Cc;
  const int32_t zy = T.zeroPoint(n.outputs[0]);
  const int32_t lo = static_cast<int32_t>(n.getInt("act_min", T.actMin)),
                hi = static_cast<int32_t>(n.getInt("act_max", T.actMax));
  const auto chunks = outputChunks(m);
  const auto blockWidth = [&](int64_t j0) {
    const int64_t J = std::min(m.ocBlock, nOc - j0);
    return sameInputTiles(k, j0, J) ? J : 1;
  };
  int64_t blocksPerImage = 0;
  for (int64_t j0 = 0; j0 < nOc; j0 += blockWidth(j0)) ++blocksPerImage;
  // Blocks are counted on from image to image, so the scale-row sets alternate across images too.
  int64_t block = T.image() * blocksPerImage;
  for (int64_t j0 = 0; j0 < nOc; ++block) {
    const int64_t J = blockWidth(j0);
    // Scale rows alternate between two sets by block: block b + 2's load waits (an accumulator
    // load: schedule.cpp) until the computes two steps before it, after block b's last requantize.
    const int64_t scaleRow = T.layout().scale_base + (T.layout().scale_rows / 2) * (block % 2);
    const auto channels = [&](int64_t jj) { return std::min(Cc, m.s.OC - (j0 + jj) * Cc); };
    for (const Chunk& chunk : chunks) {
      const Operand acc = T.newAccTile();
      const auto groups = m.dwRows > 0 ? depthwiseGroupsFor(T, m, k, j0)
                          : m.stream   ? streamGroupsFor(T, m, k, j0, J, chunk.rows)
                                       : groupsFor(T, m, k, j0, J, chunk.rows);
      const size_t count = std::max<size_t>(groups.size(), 1);
      for (size_t g = 0; g < count; ++g) {
        for (int64_t jj = 0; jj < J && g == 0; ++jj) {
          const int64_t c0 = (j0 + jj) * Cc;
          if (&chunk == &chunks.front())
            loadScales(T, {k.multipliers.begin() + c0, k.multipliers.begin() + c0 + channels(jj)},
                       {k.shifts.begin() + c0, k.shifts.begin() + c0 + channels(jj)}, scaleRow + 2 * jj);
          T.load(Semantics::DmaLoadAcc,
                 {k.bias + (j0 + jj) * T.p.acc_row_bytes, acc + jj * chunk.rows, chunk.rows, T.p.acc_row_bytes, 0});
        }
        if (!groups.empty() && m.dwRows > 0)
          emitDepthwiseGroup(T, m, groups[g], chunk, k.weights, acc);
        else if (!groups.empty() && m.stream)
          emitStreamGroup(T, m, groups[g], chunk, k.weights, acc);
        else if (!groups.empty() && groups[g].span > 1)
          emitMatrixGroup(T, m, groups[g], chunk, k.weights, acc);
        else if (!groups.empty())
          emitConvGroup(T, m, groups[g], chunk, k.weights, acc);
        if (g + 1 == count) {
          for (int64_t jj = 0; jj < J; ++jj)
            T.compute(Semantics::Requantize,
                      {acc + jj * chunk.rows, T.outSlot(jj * chunk.rows), chunk.rows, scaleRow + 2 * jj, zy, lo, hi});
          T.writesOutput();
          for (int64_t jj = 0; jj < J; ++jj)
            storeRuns(T, chunk.runs, y, (j0 + jj) * Cc, channels(jj), T.outSlot(jj * chunk.rows));
        }
        T.endStep(groupLabel(m, j0, J, chunk, groups, g));
      }
    }
    j0 += J;
  }
  T.layer().loops = loopsText(m, n, nOc, chunks.size());
}

/// The cost model's cycles for tiling `m` of the layer: its steps are made in a scratch plan (the
/// layer's real plan is untouched; the scale constants made there are discarded) and costed by
/// predictStepCycles (step_cost.cpp), the model the layer report uses too.
/// A plan for trying tilings of the layer being tiled: its layout and buffers, the layer, no steps.
TilePlan scratchPlan(const TileContext& T) {
  TilePlan scratch;
  scratch.layout = T.plan.layout;
  scratch.buffers = T.plan.buffers;
  scratch.layers.emplace_back().name = T.plan.layers.back().name;
  return scratch;
}

int64_t predictedCycles(const TileContext& T, const Node& n, const MatmulTiling& m, const MatmulConstants& k) {
  TilePlan scratch = scratchPlan(T);
  TileContext S(T.g, T.isa, scratch);
  emitSteps(S, n, m, k);
  return predictStepCycles(T.isa, T.layout(), scratch.layers.back().steps);
}

/// Among output-channel blocks of 1, 2, 4, ... tiles (layout.oc_block at most), the tiling the
/// cost model predicts fastest: a block of J tiles takes chunks of at most 1/J of an accumulator
/// half and of an output slot (more, smaller chunks: the weights are loaded once per chunk, the
/// input pixels once per block).
/// Of `candidates` (at least two), the first the cost model predicts fastest, and its cycles. The
/// predictions are independent (each in its own scratch plan), so they run on every core; the
/// choice does not depend on the thread count.
std::pair<MatmulTiling, int64_t> fastestOf(const TileContext& T, const Node& n,
                                           const std::vector<MatmulTiling>& candidates, const MatmulConstants& k) {
  std::vector<int64_t> cycles(candidates.size());
  parallelFor(candidates.size(), 0, [&](size_t i) { cycles[i] = predictedCycles(T, n, candidates[i], k); });
  const size_t best = static_cast<size_t>(std::min_element(cycles.begin(), cycles.end()) - cycles.begin());
  return {candidates[best], cycles[best]};
}

std::pair<MatmulTiling, int64_t> fastestOcBlocking(const TileContext& T, const Node& n, const MatmulTiling& m,
                                                   const MatmulConstants& k) {
  const OnChipLayout& l = T.layout();
  const int64_t nOc = (m.s.OC + T.p.array_cols - 1) / T.p.array_cols, total = (m.s.OH - 1) * m.VW + m.s.OW;
  const int64_t span = m.shiftedTaps ? (m.s.KW - 1) * m.s.dw : 0;
  std::vector<MatmulTiling> candidates{m};
  for (int64_t J = 2; J <= std::min(l.oc_block, nOc); J *= 2) {
    MatmulTiling b = m;
    b.ocBlock = J;
    const int64_t most = std::min({m.rowsPerChunk, l.acc_half / J, l.chunk / J});
    if (most < 1) break;  // a chunk of J tiles' rows holds no pixel (a narrow matmul_tile `m`)
    b.rowsPerChunk = balancedChunk(total, most);
    if (J * T.p.array_rows + b.rowsPerChunk + span > l.slot_rows) break;  // one tap of the block must fit a load slot
    candidates.push_back(b);
  }
  if (candidates.size() == 1) return {m, 0};  // only one candidate, not costed
  return fastestOf(T, n, candidates, k);
}

/// Streamed: among output-channel blocks of 1, 2, 4, ... tiles and chunks of array.rows, twice
/// that, ... up to the largest, the tiling the cost model predicts fastest. A smaller chunk lets
/// a load slot hold more slices (fewer fills and drains per output tile) but loads the weights
/// more often; a bigger block loads the activations once for more output tiles. Chunks are whole
/// multiples of array.rows where they can be, so no matmul_stream streams a partial tile but
/// the last.
std::pair<MatmulTiling, int64_t> fastestStreamTiling(const TileContext& T, const Node& n, const MatmulTiling& m,
                                                     const MatmulConstants& k) {
  const OnChipLayout& l = T.layout();
  const int64_t R = T.p.array_rows, nOc = (m.s.OC + T.p.array_cols - 1) / T.p.array_cols,
                total = (m.s.OH - 1) * m.VW + m.s.OW;
  std::vector<int64_t> limits;
  for (int64_t c = R; c < m.rowsPerChunk; c *= 2) limits.push_back(c);
  limits.push_back(m.rowsPerChunk);
  std::vector<MatmulTiling> candidates;
  for (int64_t J = 1; J <= std::min(l.oc_block, nOc); J *= 2)
    for (int64_t limit : limits) {
      MatmulTiling b = m;
      b.ocBlock = J;
      const int64_t most = std::min({limit, m.rowsPerChunk, l.acc_half / J, l.chunk / J});
      if (most < 1) continue;
      b.rowsPerChunk = std::min(most, (balancedChunk(total, most) + R - 1) / R * R);
      if (J * R + streamStride(T, b, b.rowsPerChunk) > l.slot_rows - streamPad(T))
        continue;  // one slice of the block must fit a load slot
      // Limits often give the same chunk.
      if (std::none_of(candidates.begin(), candidates.end(),
                       [&](const MatmulTiling& c) { return c.ocBlock == J && c.rowsPerChunk == b.rowsPerChunk; }))
        candidates.push_back(b);
    }
  if (candidates.empty()) return {m, 0};
  if (candidates.size() == 1) return {candidates[0], predictedCycles(T, n, candidates[0], k)};
  return fastestOf(T, n, candidates, k);
}

/// The fastest tiling on weight tiles (weight_preload + matmul_tile or matmul_stream) and its
/// predicted cycles.
std::pair<MatmulTiling, int64_t> weightTileTiling(const TileContext& T, const Node& n, const ConvShape& s,
                                                  const MatmulConstants& k) {
  const auto fastest = T.isa.bySemantics(Semantics::MatmulStream) >= 0 ? fastestStreamTiling : fastestOcBlocking;
  // One stride for rows and columns: virtual rows; for a strided convolution, gathered rows
  // instead when the cost model predicts them faster (each form with its fastest blocking).
  // At stride 1 the unused virtual columns cost array time too: compare there as well when
  // streamed, or with 2-D loads (gathered rows then take one DMA per tap, not per tap and row).
  auto [m, cycles] = fastest(T, n, tilingOf(T, n, s, s.sh == s.sw), k);
  const bool twoD = T.isa.bySemantics(isa::Semantics::DmaLoad2d) >= 0;
  if (s.conv && s.sh == s.sw && (s.sw > 1 || (m.VW > s.OW && (m.stream || twoD)))) {
    auto [gathered, gatheredCycles] = fastest(T, n, tilingOf(T, n, s, false), k);
    if (cycles == 0) cycles = predictedCycles(T, n, m, k);
    if (gatheredCycles == 0) gatheredCycles = predictedCycles(T, n, gathered, k);
    const int64_t virtualCycles = cycles;
    if (gatheredCycles < virtualCycles) m = gathered;
    m.virtualCycles = virtualCycles;
    m.gatheredCycles = gatheredCycles;
    cycles = std::min(virtualCycles, gatheredCycles);
  }
  if (cycles == 0) cycles = predictedCycles(T, n, m, k);
  return {m, cycles};
}

/// A depthwise conv in the depthwise mode or as vector MACs when the cost model predicts one of
/// them faster than weight tiles (each tried in a scratch plan, so that only the chosen weights
/// become constants); dwRows 0 otherwise. Its *Cycles say what was compared.
MatmulTiling depthwiseChoice(const TileContext& T, const Node& n, const ConvShape& s) {
  const int64_t VW = T.buffer(n.inputs[0]).paddedW();
  TilePlan scratch = scratchPlan(T);
  TileContext S(T.g, T.isa, scratch);
  MatmulTiling best;
  int64_t bestCycles = 0;
  const auto tryForm = [&](Semantics form) {
    const int64_t kernelRows = depthwiseKernelRows(T, s, VW, form);
    if (kernelRows == 0) return int64_t{0};
    MatmulTiling m = depthwiseTiling(S, n, s, kernelRows, form);
    if (m.dwRows == 0) return int64_t{0};
    const int64_t cycles = predictedCycles(S, n, m, matmulConstants(S, n, s, kernelRows));
    if (bestCycles == 0 || cycles < bestCycles) best = m, bestCycles = cycles;
    return cycles;
  };
  const int64_t modeCycles = tryForm(Semantics::DepthwiseTile), macCycles = tryForm(Semantics::VectorMac);
  if (bestCycles == 0) return {};
  const int64_t arrayCycles = weightTileTiling(S, n, s, matmulConstants(S, n, s)).second;
  if (bestCycles >= arrayCycles) return {};
  MatmulTiling chosen =  // on the layer's own buffers
      depthwiseTiling(T, n, s, best.dwRows, best.vectorMac ? Semantics::VectorMac : Semantics::DepthwiseTile);
  chosen.depthwiseCycles = modeCycles;
  chosen.vectorMacCycles = macCycles;
  chosen.arrayCycles = arrayCycles;
  return chosen;
}

}  // namespace

void tileMatmul(TileContext& T, const Node& n) {
  if (isActivationProduct(T.g, n)) return tileActivationMatmul(T, n);
  const ConvShape s = convShape(T, n);
  MatmulTiling m = depthwiseChoice(T, n, s);
  const MatmulConstants k = matmulConstants(T, n, s, m.dwRows);
  if (m.dwRows == 0) m = weightTileTiling(T, n, s, k).first;
  emitSteps(T, n, m, k);
  const ActBuffer& y = T.buffer(n.outputs[0]);
  T.layer().min_dram_bytes =
      (T.g.values[static_cast<size_t>(n.inputs[1])].elements() + m.x->H * m.x->W * m.x->C + y.H * y.W * y.C) * T.lane +
      4 * m.s.OC;
}

}  // namespace systole::compiler
