// The NPU operators, one entry each: what the operator needs from the config (the semantics
// classes its tiler selects), when it can run on the NPU, how much work it is, how much halo its
// input needs, and its tiler. Partitioning, the tiling pass, the cost model and the reports read
// only this table. Adding an operator: one entry in operator_registry.cpp and one tiler file.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "systole/compiler/graph.h"
#include "tile_context.h"

namespace systole::compiler {

struct NpuOperator {
  Op op;
  std::vector<isa::Semantics> semantics;  // a config without one of them runs the operator on the host
  /// Alternatives the tiler chooses among by what the config has: it needs every class of one of
  /// them (the first the config has complete is used). Empty: none needed.
  std::vector<std::vector<isa::Semantics>> one_of = {};
  /// Shape-only: the output aliases the input's bytes (checked to keep the NHWC byte order).
  bool alias = false;
  /// Operator-specific eligibility beyond "int8 activations in, int8 out": "" or the reason.
  std::string (*check)(const Graph& g, const Node& n, const std::vector<ActBuffer>& ins,
                       const std::vector<ActBuffer>& outs) = nullptr;
  /// Halo pixels the first input needs on every side (padding read as the zero point).
  int64_t (*halo)(const Node& n, const ActBuffer& in, const ActBuffer& out) = nullptr;
  /// The halo only feeds max windows, so it may hold -128 instead of the zero point.
  bool halo_for_max = false;
  /// Appends the operator's steps to T.layer().
  void (*tile)(TileContext& T, const Node& n) = nullptr;
  /// The output is a matrix whose rows are the input's images (so its own batch is 1).
  bool images_as_rows = false;
  /// Eligibility that depends on the config's shape (lanes, rows): "" or the reason.
  std::string (*fits)(const Graph& g, const Node& n, const isa::IsaConfig& isa) = nullptr;
  /// The largest magnitude any accumulator lane reaches while the tiler's instructions run, which
  /// a narrow accumulator (types.accumulator) must hold without saturating. nullptr: not bounded
  /// here, so the operator needs an int32 accumulator.
  int64_t (*accumulator_bound)(const Graph& g, const Node& n) = nullptr;
};

/// The entry for an ONNX operator type, or nullptr.
const NpuOperator* npuOperator(Op op);
std::span<const NpuOperator> npuOperators();
/// Whether the back end may emit an instruction of class `s` (dma_store_acc it never does).
bool backendEmits(isa::Semantics s);

/// Why `n` cannot run on the NPU described by `isa`, or "" if it can.
std::string npuIneligibility(const Graph& g, const Node& n, const isa::IsaConfig& isa);
/// The node's multiply-accumulates (its operator's definition) if it has an NPU lowering, else 0.
int64_t npuMacs(const Graph& g, const Node& n);

/// The NHWC buffer shape of a graph value (batch 1); throws if the NPU cannot hold it.
ActBuffer bufferShape(const Value& v);
/// Whether `axis` of a matrix or a stack of them ([A, B, C]: A*B rows of C) moves whole rows that
/// stay consecutive (every axis before it is 1), so a concatenation or selection along it is a copy
/// of row ranges.
bool isRowAxis(const std::vector<int64_t>& shape, int64_t axis);

// The tilers (one file each family).
void tileMatmul(TileContext& T, const Node& n);            // Conv, Gemm, MatMul: tile_matmul.cpp
void tileActivationMatmul(TileContext& T, const Node& n);  // MatMul of two activations: tile_activation_matmul.cpp
void tileAdd(TileContext& T, const Node& n);               // tile_elementwise.cpp
void tileRequant(TileContext& T, const Node& n);           // Requant, Relu, Clip
void tileConcat(TileContext& T, const Node& n);
void tileMul(TileContext& T, const Node& n);
void tileLut(TileContext& T, const Node& n);             // tile_lut.cpp
void tileSoftmax(TileContext& T, const Node& n);         // over the last axis: tile_softmax.cpp
void tileLayerNorm(TileContext& T, const Node& n);       // LayerNormalization, last axis: tile_layernorm.cpp
void tileMax(TileContext& T, const Node& n);             // Max of two activations: tile_extremum.cpp
void tileMin(TileContext& T, const Node& n);             // Min of two activations
void tileMaxPool(TileContext& T, const Node& n);         // tile_pool.cpp
void tileAveragePool(TileContext& T, const Node& n);     // AveragePool, GlobalAveragePool
void tileChannelSelect(TileContext& T, const Node& n);   // Slice, Gather of channels: tile_channel_select.cpp
void tilePixelGather(TileContext& T, const Node& n);     // Pad (edge, reflect), spatial Slice: tile_pixel_gather.cpp
void tileSlice(TileContext& T, const Node& n);           // a channel selection, else a pixel gather
void tileDepthToSpace(TileContext& T, const Node& n);    // tile_depth_to_space.cpp
void tileFlattenNhwc(TileContext& T, const Node& n);     // tile_flatten_nhwc.cpp
void tileNearestResize(TileContext& T, const Node& n);   // Resize, Upsample (nearest, integer factors)
void tileRowPermutation(TileContext& T, const Node& n);  // Transpose [A, B, C] -> [B, A, C]: tile_row_permutation.cpp

/// The input channel of each output channel when `n` (Slice or Gather) selects whole channels
/// (constant parameters, every other axis kept), else nullopt.
std::optional<std::vector<int64_t>> selectedChannels(const Graph& g, const Node& n);

/// A spatial layout move of a 4-D tensor: output (n, c, y, x) = input (n, channels[c],
/// pixels.rows[y], pixels.cols[x]).
struct SpatialMove {
  std::vector<int64_t> channels;
  PixelGather pixels;
};
/// `n` as a spatial layout move — a Slice keeping the batch, an edge or reflect Pad of H and W
/// (constant parameters) — else nullopt.
std::optional<SpatialMove> spatialMove(const Graph& g, const Node& n);

/// The input matrix row of each output row when `n` (Gather or Slice, constant parameters) selects
/// along a row axis (isRowAxis), else nullopt.
std::optional<std::vector<int64_t>> selectedRows(const Graph& g, const Node& n);
void tileRowSelect(TileContext& T, const Node& n);      // tile_row_permutation.cpp
void tileUnflattenNhwc(TileContext& T, const Node& n);  // tile_flatten_nhwc.cpp
/// (A, B) when `n` is a Transpose [A, B, C] -> [B, A, C] (whole rows move), else nullopt.
std::optional<std::pair<int64_t, int64_t>> rowPermutation(const Graph& g, const Node& n);

/// The integer factors (H, W) of a Resize/Upsample that samples output pixel (y, x) from input
/// pixel (y / sy, x / sx) of a 4-D tensor (nearest, constant parameters), else nullopt.
std::optional<std::pair<int64_t, int64_t>> nearestUpsampleFactors(const Graph& g, const Node& n);

}  // namespace systole::compiler
