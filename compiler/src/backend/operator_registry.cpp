#include "operator_registry.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <variant>

#include "systole/compiler/accumulator_bound.h"
#include "systole/compiler/float_ops.h"
#include "systole/compiler/quant_math.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

using S = isa::Semantics;

namespace {

const Value& valueOf(const Graph& g, int v) { return g.values[static_cast<size_t>(v)]; }

// ---- eligibility rules -------------------------------------------------------------------------

/// A MatMul of two int8 activations at zero point 0, stacks of matrices (rank 2 or 3).
std::string checkActivationMatmul(const Graph& g, const Node& n) {
  const Value &a = valueOf(g, n.inputs[0]), &b = valueOf(g, n.inputs[1]);
  if (a.shape.size() > 3 || b.shape.size() != a.shape.size())
    return "a product of two activations runs on the NPU for matrices and stacks of them (rank 2 or 3)";
  if (a.quant->zero_point.at(0) != 0 || b.quant->zero_point.at(0) != 0)
    return "a product of two activations needs both at zero point 0";
  return "";
}

std::string checkMatmul(const Graph& g, const Node& n, const std::vector<ActBuffer>&, const std::vector<ActBuffer>&) {
  const Value& w = valueOf(g, n.inputs.at(1));
  if (isActivationProduct(g, n)) return checkActivationMatmul(g, n);
  if (!w.is_constant || w.type != ElemType::Int8) return "its weights are not a constant int8 tensor";
  if (n.op != Op::Conv && w.shape.size() != 2) return "its weights are not a matrix";
  if (n.op == Op::Conv && w.shape.size() != 4) return "only 2-D convolutions run on the NPU";
  // A MatMul reduces its input's last axis; a 4-D tensor's last axis is W, which the NHWC layout
  // interleaves with the channels (found on openWakeWord's melspectrogram, [1, 1, T, 257] x [257, 32]).
  if (n.op == Op::MatMul && valueOf(g, n.inputs.at(0)).shape.size() == 4)
    return "a MatMul over a 4-D tensor reduces its W axis, which the NHWC layout does not keep contiguous";
  return "";
}

/// Max and Min: two activations of one shape (the quantizer gave them the output's scale).
std::string checkSameShape(const Graph& g, const Node& n, const std::vector<ActBuffer>& ins,
                           const std::vector<ActBuffer>&) {
  if (ins.size() != 2 || valueOf(g, n.inputs[0]).shape != valueOf(g, n.inputs[1]).shape)
    return "broadcasting operands run on the host";
  return "";
}

/// A quantized constant an operator reads as an activation (a position embedding, a class token).
bool isQuantizedConstant(const Value& v) {
  return v.is_constant && (v.type == ElemType::Int8 || v.type == ElemType::Int16) && v.quant;
}

/// Two tensors of one shape: two activations, or an activation and an int8 constant.
std::string checkAdd(const Graph& g, const Node& n, const std::vector<ActBuffer>& ins, const std::vector<ActBuffer>&) {
  if (n.inputs.size() != 2 || valueOf(g, n.inputs[0]).shape != valueOf(g, n.inputs[1]).shape)
    return "broadcasting adds run on the host";
  if (ins.size() != 2 && !isQuantizedConstant(valueOf(g, n.inputs[0])) && !isQuantizedConstant(valueOf(g, n.inputs[1])))
    return "an add of a constant that is not int8 runs on the host";
  return "";
}

/// Two activations of one shape, or a per-channel second one ([N, C, 1, 1]) against [N, C, H, W].
std::string checkMul(const Graph& g, const Node& n, const std::vector<ActBuffer>& ins, const std::vector<ActBuffer>&) {
  if (ins.size() != 2) return "a product with a constant runs on the host";
  const auto& a = valueOf(g, n.inputs[0]).shape;
  const auto& b = valueOf(g, n.inputs[1]).shape;
  if (a == b || (a.size() == 4 && b == std::vector<int64_t>{a[0], a[1], 1, 1})) return "";
  return "only same-shape or per-channel products run on the NPU";
}

/// Channels, or the rows of a matrix (a class token before the patches); int8 constants among them.
std::string checkConcat(const Graph& g, const Node& n, const std::vector<ActBuffer>&, const std::vector<ActBuffer>&) {
  for (int v : n.inputs)
    if (valueOf(g, v).is_constant && !isQuantizedConstant(valueOf(g, v)))
      return "concatenation with a constant that is not int8 runs on the host";
  const auto& shape = valueOf(g, n.outputs[0]).shape;
  const auto axis = static_cast<int64_t>(ops::normAxis(n.getInt("axis", 1), shape.size()));
  const int64_t channelAxis = shape.size() == 4 ? 1 : static_cast<int64_t>(shape.size()) - 1;
  if (axis != channelAxis && !isRowAxis(shape, axis)) return "only channel or row concatenation runs on the NPU";
  return "";
}

std::string checkChannelSelect(const Graph& g, const Node& n, const std::vector<ActBuffer>&,
                               const std::vector<ActBuffer>&) {
  return selectedChannels(g, n) || selectedRows(g, n)
             ? ""
             : "only a constant selection of whole channels or matrix rows runs on the NPU";
}

std::string checkSlice(const Graph& g, const Node& n, const std::vector<ActBuffer>&, const std::vector<ActBuffer>&) {
  return selectedChannels(g, n) || spatialMove(g, n) || selectedRows(g, n)
             ? ""
             : "only a constant selection of channels, of matrix rows, or of pixels keeping the batch, runs on the NPU";
}

std::string checkPad(const Graph& g, const Node& n, const std::vector<ActBuffer>&, const std::vector<ActBuffer>&) {
  return spatialMove(g, n) ? ""
                           : "only an edge or reflect Pad of H and W runs on the NPU (zero fills fold into the reader)";
}

/// A reshape aliases its input only when every byte stays where it is. A 4-D tensor is NHWC in
/// DRAM but NCHW to the model, so between two 4-D shapes it may only regroup pixels (the same
/// images and channels); a 4-D tensor and a row-major matrix ([..., rows, C]) agree only when the
/// 4-D one has a single pixel per image; two matrices always agree (both are dense and row-major:
/// an aliased buffer is never a view at a pitch, see elideConcats).
std::string checkAlias(const Graph& g, const Node& n, const std::vector<ActBuffer>& ins,
                       const std::vector<ActBuffer>& outs) {
  const ActBuffer &a = ins[0], &b = outs[0];
  const bool a4 = valueOf(g, n.inputs[0]).shape.size() == 4, b4 = valueOf(g, n.outputs[0]).shape.size() == 4;
  if (!a4 && !b4) return "";  // the same element count, as the graph's shapes say
  bool same = a.C == b.C && a.N * a.H * a.W == b.N * b.H * b.W;
  if (a4 && b4)
    same = same && a.N == b.N;
  else if (a4 || b4)
    same = same && (a4 ? a : b).H * (a4 ? a : b).W == 1;
  return same ? "" : "this reshape reorders bytes in the NHWC layout";
}

std::string checkRowPermutation(const Graph& g, const Node& n, const std::vector<ActBuffer>&,
                                const std::vector<ActBuffer>&) {
  return rowPermutation(g, n) ? "" : "only a Transpose of whole rows ([A, B, C] -> [B, A, C]) runs on the NPU";
}

std::string checkNearestResize(const Graph& g, const Node& n, const std::vector<ActBuffer>&,
                               const std::vector<ActBuffer>&) {
  return nearestUpsampleFactors(g, n) ? "" : "only a nearest upsampling of H and W by integer factors runs on the NPU";
}

/// Softmax and LayerNormalization over the last axis of a matrix (not of a 4-D tensor).
std::string checkLastAxisOfMatrix(const Graph& g, const Node& n, const std::vector<ActBuffer>&,
                                  const std::vector<ActBuffer>&) {
  if (valueOf(g, n.inputs[0]).shape.size() == 4)
    return "a " + n.op.name() + " over a 4-D tensor reduces its W axis, which the NHWC layout does not keep contiguous";
  return "";
}

/// The array's weight registers are as wide as the widest of types.weight: an int4-only array
/// multiplies layers quantized to int4, and a product of two int8 activations runs on the host.
std::string weightsFitArray(const Graph& g, const Node& n, const isa::IsaConfig& isa) {
  const int bits = isa.params().widestWeightBits();
  const int need = isActivationProduct(g, n) ? 8 : static_cast<int>(n.getInt("weight_bits", 8));
  if (need <= bits) return "";
  return "the array holds int" + std::to_string(bits) + " weights (types.weight) and " +
         (isActivationProduct(g, n) ? std::string("this is a product of two int8 activations")
                                    : "its weights are int" + std::to_string(need));
}

/// A product of two activations preloads B's tiles as the array's weights (transposed with transB).
std::string matmulFits(const Graph& g, const Node& n, const isa::IsaConfig& isa) {
  if (std::string why = weightsFitArray(g, n, isa); !why.empty()) return why;
  if (!isActivationProduct(g, n)) return "";
  std::vector<S> need = {S::WeightPreload, S::MatmulTile};
  if (n.getInt("transB", 0) != 0) need.push_back(S::WeightPreloadT);
  for (S s : need)
    if (isa.bySemantics(s) < 0)
      return "ISA '" + isa.params().name + "' has no '" + std::string(isa::semanticsInfo(s).name) +
             "' instruction for a product of two activations";
  return "";
}

/// The vector tiles of one row of `n`'s input (its last axis; the last one may be partly padding), or
/// the reason it cannot have them. Every layout's load slot has at least an eighth of the scratchpad and its
/// accumulator half (acc_rows - 16) / 2 rows (tiling.cpp, chooseOnChipLayout), which the callers check their blocks
/// against.
std::variant<int64_t, std::string> rowTiles(const Graph& g, const Node& n, const isa::Params& p) {
  const int64_t len = valueOf(g, n.inputs[0]).shape.back();
  if (p.spad_row_elems < p.acc_row_elems) return std::string("a scratchpad row is narrower than an accumulator row");
  return (len + p.acc_row_elems - 1) / p.acc_row_elems;
}

/// Rows of vector tiles whose deviations, beta rows and gamma scales (two blocks and a pair of rows
/// per tile) fit an accumulator half beside four blocks more (five for a ragged row; tile_layernorm.cpp).
std::string layerNormFits(const Graph& g, const Node& n, const isa::IsaConfig& isa) {
  const isa::Params& p = isa.params();
  const auto tiles = rowTiles(g, n, p);
  if (const auto* why = std::get_if<std::string>(&tiles)) return *why;
  const int64_t t = std::get<int64_t>(tiles);
  const int64_t len = valueOf(g, n.inputs[0]).shape.back();  // the first step widens x by the row's length
  const int64_t blocks = 2 * t + 4 + (len % p.acc_row_elems != 0 ? 1 : 0);
  if (blocks * 2 + 2 * t > (p.acc_rows - 16) / 2 || t > p.spad_rows / 8)
    return "a row of " + std::to_string(t) + " tiles, its deviations and per-channel constants do not fit the " +
           "accumulator";
  if (len > operandLimit(isa, S::VectorWiden, 4))
    return "a row of " + std::to_string(len) + " elements is beyond the widen multiplier field";
  return "";
}

/// Rows of vector tiles (and as many mask tiles) that fit a load slot beside the two
/// exponential tables, and whose exponentials fit an accumulator half beside four blocks and a
/// pair of scale rows more (tile_softmax.cpp).
std::string softmaxFits(const Graph& g, const Node& n, const isa::IsaConfig& isa) {
  const isa::Params& p = isa.params();
  const auto tiles = rowTiles(g, n, p);
  if (const auto* why = std::get_if<std::string>(&tiles)) return *why;
  const int64_t t = std::get<int64_t>(tiles);
  if (2 * p.lut_rows + 2 * t + 2 > p.spad_rows / 8 || 2 * (t + 4) + 2 > (p.acc_rows - 16) / 2)
    return "the exponential tables (2 x " + std::to_string(p.lut_rows) + " scratchpad rows) and a row of " +
           std::to_string(t) + " tiles do not fit the on-chip memory";
  const bool ragged = valueOf(g, n.inputs[0]).shape.back() % p.acc_row_elems != 0;
  if ((n.inputs.size() > 1 || ragged) && n.getInt("mask_push", 0) > operandLimit(isa, S::VectorWiden, 4))
    return "the mask's push (" + std::to_string(n.getInt("mask_push", 0)) + ") is beyond the widen multiplier field";
  return "";
}

// ---- accumulator bounds ------------------------------------------------------------------------
// What the tilers put in accumulator lanes: int8 values widened as (x - z) * multiplier (|x - z|
// at most 255), their sums and products, and matrix products (accumulator_bound.h).

constexpr int64_t kWidened = isa::arith::kActSpan;
constexpr int64_t kLargestActivation = isa::arith::kActLargestMagnitude;

int64_t noAccumulator(const Graph&, const Node&) { return 0; }
/// A rescale, a move or a program input's copy into its haloed buffer: widen by 1, requantize.
int64_t widenedOnce(const Graph&, const Node&) { return kWidened; }
/// min(a, b) = a + b - max(a, b) (tile_extremum.cpp).
int64_t minBound(const Graph&, const Node&) { return 3 * kWidened; }
int64_t mulBound(const Graph&, const Node&) { return kWidened * kWidened; }

int64_t addBound(const Graph&, const Node& n) {
  return kWidened * (std::abs(n.getInt("a_multiplier", 0)) + std::abs(n.getInt("b_multiplier", 0)));
}

/// The window's widened inputs summed (AveragePool: its kernel; GlobalAveragePool: the plane).
int64_t poolBound(const Graph& g, const Node& n) {
  int64_t window = 1;
  if (n.op == Op::GlobalAveragePool) {
    const auto& shape = valueOf(g, n.inputs[0]).shape;
    for (size_t d = 2; d < shape.size(); ++d) window *= shape[d];
  } else {
    for (int64_t k : n.getInts("kernel_shape")) window *= k;
  }
  return kWidened * window;
}

/// A product of two activations at zero point 0 sums K products of at most 128 x 128; a layer
/// with int8 weights, its bias row plus its products (matrixAccumulatorBounds).
int64_t matmulBound(const Graph& g, const Node& n) {
  if (isActivationProduct(g, n)) return valueOf(g, n.inputs[0]).shape.back() * kLargestActivation * kLargestActivation;
  const Value& w = valueOf(g, n.inputs[1]);
  std::vector<int32_t> bias;
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
    const Value& b = valueOf(g, n.inputs[2]);
    bias.resize(b.data.size() / sizeof(int32_t));
    std::memcpy(bias.data(), b.data.data(), bias.size() * sizeof(int32_t));
  }
  const int axis = n.op == Op::Conv ? 0 : 1;
  const auto bounds = matrixAccumulatorBounds(reinterpret_cast<const int8_t*>(w.data.data()), w.shape, axis, bias,
                                              valueOf(g, n.inputs[0]).quant->zero_point.at(0));
  return bounds.empty() ? 0 : *std::max_element(bounds.begin(), bounds.end());
}

/// A narrow accumulator holds the operator's lanes and its requantize multipliers (a scale row).
std::string accumulatorFits(const Graph& g, const Node& n, const NpuOperator& entry, const isa::Params& p) {
  if (p.acc_bits >= 32) return "";
  const std::string type = "types.accumulator is int" + std::to_string(p.acc_bits);
  if (!entry.accumulator_bound) return "it needs an int32 accumulator (" + type + ")";
  int64_t need = entry.accumulator_bound(g, n);
  for (int64_t m : n.getInts("multiplier")) need = std::max(need, std::abs(m));
  if (need <= isa::arith::accumulatorMax(p.acc_bits)) return "";
  return "its accumulator lanes can reach " + std::to_string(need) + " (" + type + ")";
}

// ---- halos -------------------------------------------------------------------------------------

int64_t padsHalo(const Node& n, const ActBuffer&, const ActBuffer&) {
  const auto pads = n.getInts("pads", {0, 0, 0, 0});
  return *std::max_element(pads.begin(), pads.end());
}

int64_t maxPoolHalo(const Node& n, const ActBuffer& in, const ActBuffer& out) {
  int64_t need = padsHalo(n, in, out);
  if (n.getInt("ceil_mode", 0) != 0) {
    // ceil_mode windows overhang the bottom and right edges: more padding that never wins.
    const auto pads = n.getInts("pads", {0, 0, 0, 0}), k = n.getInts("kernel_shape"), st = n.getInts("strides", {1, 1});
    need = std::max({need, (out.H - 1) * st[0] + k[0] - in.H - pads[0], (out.W - 1) * st[1] + k[1] - in.W - pads[1]});
  }
  return need;
}

// ---- the table ---------------------------------------------------------------------------------

const std::vector<S> kMatmul = {S::DmaLoad, S::DmaStore, S::Requantize, S::DmaLoadAcc};
// The array's product: a streamed reduction (output-stationary), or preloaded weight tiles.
const std::vector<std::vector<S>> kArrayProduct = {{S::MatmulStream}, {S::WeightPreload, S::MatmulTile}};
const std::vector<S> kWidenAdd = {S::DmaLoad, S::DmaStore, S::Requantize, S::DmaLoadAcc, S::VectorWiden, S::VectorAdd};
const std::vector<S> kRescale = {S::DmaLoad, S::DmaStore, S::Requantize, S::DmaLoadAcc, S::VectorWiden};
const std::vector<S> kMax = {S::DmaLoad, S::DmaStore, S::VectorMax};
const std::vector<S> kWidenMul = {S::DmaLoad, S::DmaStore, S::Requantize, S::DmaLoadAcc, S::VectorWiden, S::VectorMul};
const std::vector<S> kLut = {S::DmaLoad, S::DmaStore, S::VectorLut};
const std::vector<S> kLayerNorm = {S::DmaLoad,   S::DmaStore,  S::DmaLoadAcc,   S::Requantize, S::VectorWiden,
                                   S::VectorAdd, S::VectorMul, S::VectorReduce, S::VectorRecip};
const std::vector<S> kSoftmax = {S::DmaLoad,      S::DmaStore,  S::DmaLoadAcc, S::Requantize,
                                 S::VectorWiden,  S::VectorAdd, S::VectorMul,  S::VectorMax,
                                 S::VectorReduce, S::VectorLut, S::VectorRecip};
// min(a, b) = a + b - max(a, b) in the accumulator (tile_extremum.cpp).
const std::vector<S> kMin = {S::DmaLoad,     S::DmaStore,  S::Requantize, S::DmaLoadAcc,
                             S::VectorWiden, S::VectorAdd, S::VectorMax};

NpuOperator aliasOp(Op op) {
  return {op, {}, {}, true, checkAlias, nullptr, false, nullptr, false, nullptr, noAccumulator};
}

/// A copy through the vector unit (widen by 1, requantize), possibly rescaling: the movement
/// operators and the fused clamps.
NpuOperator rescaleOp(Op op, decltype(NpuOperator::check) check, void (*tile)(TileContext&, const Node&),
                      bool imagesAsRows = false) {
  return {op, kRescale, {}, false, check, nullptr, false, tile, imagesAsRows, nullptr, widenedOnce};
}

const std::vector<NpuOperator>& table() {
  static const std::vector<NpuOperator> ops = {
      {Op::Conv, kMatmul, kArrayProduct, false, checkMatmul, padsHalo, false, tileMatmul, false, weightsFitArray,
       matmulBound},
      {Op::Gemm, kMatmul, kArrayProduct, false, checkMatmul, nullptr, false, tileMatmul, false, weightsFitArray,
       matmulBound},
      {Op::MatMul, kMatmul, kArrayProduct, false, checkMatmul, nullptr, false, tileMatmul, false, matmulFits,
       matmulBound},
      {Op::Add, kWidenAdd, {}, false, checkAdd, nullptr, false, tileAdd, false, nullptr, addBound},
      {Op::Mul, kWidenMul, {}, false, checkMul, nullptr, false, tileMul, false, nullptr, mulBound},
      {Op::Lut, kLut, {}, false, nullptr, nullptr, false, tileLut, false, nullptr, noAccumulator},
      {Op::Softmax, kSoftmax, {}, false, checkLastAxisOfMatrix, nullptr, false, tileSoftmax, false, softmaxFits},
      {Op::LayerNormalization,
       kLayerNorm,
       {},
       false,
       checkLastAxisOfMatrix,
       nullptr,
       false,
       tileLayerNorm,
       false,
       layerNormFits},
      {Op::Max, kMax, {}, false, checkSameShape, nullptr, false, tileMax, false, nullptr, noAccumulator},
      {Op::Min, kMin, {}, false, checkSameShape, nullptr, false, tileMin, false, nullptr, minBound},
      {Op::MaxPool, kMax, {}, false, nullptr, maxPoolHalo, true, tileMaxPool, false, nullptr, widenedOnce},
      {Op::AveragePool, kWidenAdd, {}, false, nullptr, padsHalo, false, tileAveragePool, false, nullptr, poolBound},
      {Op::GlobalAveragePool,
       kWidenAdd,
       {},
       false,
       nullptr,
       nullptr,
       false,
       tileAveragePool,
       false,
       nullptr,
       poolBound},
      rescaleOp(Op::Relu, nullptr, tileRequant),
      rescaleOp(Op::Clip, nullptr, tileRequant),
      rescaleOp(Op::Requant, nullptr, tileRequant),
      rescaleOp(Op::Concat, checkConcat, tileConcat),
      rescaleOp(Op::Slice, checkSlice, tileSlice),
      rescaleOp(Op::Pad, checkPad, tilePixelGather),
      rescaleOp(Op::Gather, checkChannelSelect, tileChannelSelect),
      rescaleOp(Op::DepthToSpace, nullptr, tileDepthToSpace),
      rescaleOp(Op::FlattenNhwc, nullptr, tileFlattenNhwc, true),
      rescaleOp(Op::Resize, checkNearestResize, tileNearestResize),
      rescaleOp(Op::Upsample, checkNearestResize, tileNearestResize),
      rescaleOp(Op::Transpose, checkRowPermutation, tileRowPermutation),
      aliasOp(Op::Reshape),
      aliasOp(Op::Flatten),
      aliasOp(Op::Squeeze),
      aliasOp(Op::Unsqueeze),
      aliasOp(Op::Identity),
      rescaleOp(Op::UnflattenNhwc, nullptr, tileUnflattenNhwc),
  };
  return ops;
}

/// The buffers of the node's activation inputs and outputs, or the reason it has none the NPU takes.
/// Activations are quantized to `lane`, the config's types.activation.
std::string activationShapes(const Graph& g, const Node& n, ElemType lane, std::vector<ActBuffer>& ins,
                             std::vector<ActBuffer>& outs) {
  const std::string type = lane == ElemType::Int16 ? "int16" : "int8";
  try {
    for (int v : n.inputs) {
      if (v < 0 || valueOf(g, v).is_constant) continue;
      if (valueOf(g, v).type != lane || !valueOf(g, v).quant)
        return "an input is not a quantized " + type + " tensor (types.activation)";
      ins.push_back(bufferShape(valueOf(g, v)));
    }
    for (int v : n.outputs) {
      if (valueOf(g, v).type != lane || !valueOf(g, v).quant)
        return "its output is not a quantized " + type + " tensor (types.activation)";
      outs.push_back(bufferShape(valueOf(g, v)));
    }
  } catch (const Error& e) {
    return e.message();
  }
  return ins.empty() ? "it reads no activation" : "";
}

/// Operators other than reshapes run image by image: every 4-D tensor has the same batch (but an
/// output holding the images as rows).
std::string checkBatch(const std::vector<ActBuffer>& ins, const std::vector<ActBuffer>& outs, bool imagesAsRows) {
  for (const auto* list : {&ins, &outs}) {
    if (list == &outs && imagesAsRows) continue;
    for (const ActBuffer& b : *list)
      if (b.N != ins[0].N) return "its tensors differ in batch size";
  }
  return "";
}

}  // namespace

std::span<const NpuOperator> npuOperators() { return table(); }

bool backendEmits(S s) {
  if (s == S::DmaLoad2d) return true;  // gathers of strided rows, where the config has it (tile_context.cpp)
  for (const NpuOperator& entry : table()) {
    if (std::find(entry.semantics.begin(), entry.semantics.end(), s) != entry.semantics.end()) return true;
    for (const auto& set : entry.one_of)
      if (std::find(set.begin(), set.end(), s) != set.end()) return true;
  }
  return false;
}

const NpuOperator* npuOperator(Op op) {
  for (const auto& entry : table())
    if (entry.op == op) return &entry;
  return nullptr;
}

bool isRowAxis(const std::vector<int64_t>& shape, int64_t axis) {
  const auto rank = static_cast<int64_t>(shape.size());
  if (rank < 2 || rank > 3 || axis < 0 || axis >= rank - 1) return false;
  return std::all_of(shape.begin(), shape.begin() + axis, [](int64_t d) { return d == 1; });
}

ActBuffer bufferShape(const Value& v) {
  ActBuffer b;
  const auto& s = v.shape;
  if (s.size() == 4) {
    b.N = s[0], b.C = s[1], b.H = s[2], b.W = s[3];
  } else if (s.size() == 3) {  // a stack of matrices is one matrix of their rows (row-major, same bytes)
    b.W = s[0] * s[1], b.C = s[2];
  } else if (s.size() == 2) {
    b.W = s[0], b.C = s[1];
  } else if (s.size() == 1) {
    b.C = s[0];
  } else {
    throw Error("value '" + v.name + "': rank " + std::to_string(s.size()) + " tensors are not supported on the NPU");
  }
  return b;
}

std::string npuIneligibility(const Graph& g, const Node& n, const isa::IsaConfig& isa) {
  const NpuOperator* entry = npuOperator(n.op.kind());
  if (!entry) return "no NPU lowering for this operator";
  for (S s : entry->semantics)
    if (isa.bySemantics(s) < 0)
      return "ISA '" + isa.params().name + "' has no '" + std::string(isa::semanticsInfo(s).name) + "' instruction";
  if (!entry->one_of.empty() &&
      std::none_of(entry->one_of.begin(), entry->one_of.end(), [&](const std::vector<S>& set) {
        return std::all_of(set.begin(), set.end(), [&](S s) { return isa.bySemantics(s) >= 0; });
      })) {
    std::string names;
    for (const auto& set : entry->one_of) {
      names += names.empty() ? "" : " or ";
      for (size_t i = 0; i < set.size(); ++i)
        names += (i ? " + '" : "'") + std::string(isa::semanticsInfo(set[i]).name) + "'";
    }
    return "ISA '" + isa.params().name + "' has no " + names + " instruction";
  }
  const isa::Params& p = isa.params();
  for (S s : {S::VectorLut, S::VectorRecip})
    if (p.act_bits != 8 && std::find(entry->semantics.begin(), entry->semantics.end(), s) != entry->semantics.end())
      return "its tables have 256 int8 entries; ISA '" + p.name + "' has int" + std::to_string(p.act_bits) +
             " activations";
  std::vector<ActBuffer> ins, outs;
  const ElemType lane = p.act_bits == 16 ? ElemType::Int16 : ElemType::Int8;
  if (std::string why = activationShapes(g, n, lane, ins, outs); !why.empty()) return why;
  if (std::string why = entry->alias ? "" : checkBatch(ins, outs, entry->images_as_rows); !why.empty()) return why;
  // A padded input that is a program input is copied into its haloed buffer by a rescale
  // (tiling.cpp, planInputs), so an operator that pads its input needs those instructions too
  // (whether its input turns out to be a program input is decided later, by the partition).
  if (entry->halo && entry->halo(n, ins[0], outs[0]) > 0)
    for (S s : kRescale)
      if (isa.bySemantics(s) < 0)
        return "ISA '" + isa.params().name + "' has no '" + std::string(isa::semanticsInfo(s).name) +
               "' instruction to pad its input";
  if (std::string why = entry->fits ? entry->fits(g, n, isa) : ""; !why.empty()) return why;
  if (std::string why = entry->check ? entry->check(g, n, ins, outs) : ""; !why.empty()) return why;
  return accumulatorFits(g, n, *entry, isa.params());
}

int64_t npuMacs(const Graph& g, const Node& n) { return npuOperator(n.op.kind()) ? operatorMacs(g, n) : 0; }

}  // namespace systole::compiler
