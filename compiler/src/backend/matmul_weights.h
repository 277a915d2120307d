// The constants of a Conv, Gemm or MatMul on the array: its geometry (with few-channel kernels
// repacked), the bias with the input zero point folded in, the weight tiles and the per-channel
// requantization scales.
#pragma once

#include <vector>

#include "tile_context.h"

namespace systole::compiler {

struct ConvShape {
  bool conv = false;
  bool packed = false;  // kw folded into the reduction (IC = KW * IC0, KW = 1)
  int64_t IC = 0, OC = 0, KH = 1, KW = 1, group = 1;
  int64_t IC0 = 0, KH0 = 1, KW0 = 1;  // the model's input channels and kernel, before repacking
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0;
  int64_t OH = 0, OW = 0;
};

/// The geometry of a Conv (weights [OC][IC/group][KH][KW]) or Gemm/MatMul (weights [K][N]) whose
/// output is `T.buffer(n.outputs[0])`.
ConvShape convShape(const TileContext& T, const Node& n);

/// The weight tiles of one (output-channel tile, input-channel tile) pair: all taps, in order.
struct WeightTile {
  int64_t t = 0;       // input-channel tile
  int64_t offset = 0;  // bytes into the weight constant
};

/// Where a layer's weight tiles are in DRAM: rows of array.cols weights, int8 or (a layer with
/// `weight_bits` 4) packed two per byte for dma_load_int4.
struct WeightTiles {
  Operand base;
  bool int4 = false;

  /// Loads `rows` weight rows into the scratchpad from `to` on; `offset` counts the tiles' bytes
  /// as if they were int8 (the offsets of WeightTile and the tap arithmetic).
  void load(TileContext& T, int64_t offset, Operand to, int64_t rows) const;
};

struct MatmulConstants {
  Operand bias;                                // one accumulator row per output-channel tile
  WeightTiles weights;                         // the tiles of every (j, t) pair that has a non-zero weight
  std::vector<std::vector<WeightTile>> tiles;  // by output-channel tile j
  std::vector<int32_t> multipliers, shifts;    // per output channel
};

/// Lays out the node's constants in DRAM (in this order: bias, weights; scales go per tile). With
/// `depthwiseRows` > 0, a depthwise conv's weights for the array's depthwise mode instead: per
/// output tile, one tile per pass of that many kernel rows (tiles[j] holds the first).
MatmulConstants matmulConstants(TileContext& T, const Node& n, const ConvShape& s, int64_t depthwiseRows = 0);

}  // namespace systole::compiler
