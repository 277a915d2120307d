// Algorithm: the quantization rewrite, in three steps over the float graph.
//  1. Classify every node: which NPU-eligible form it has (Conv, Gemm, MatMul with a constant
//     right operand, same-shape Add or Sub (an Add whose b multiplier is negative), a product with (or
//     quotient by) positive constants, a scalar (an Identity under a scaled Quant) or one per channel (a
//     per-channel Requant), Mul of two activations (same shape or per channel), pools,
//     Relu/Clip, data movement, Concat, Max/Min of two activations, one-input functions that become a Lut table),
//     checking the conditions of docs/quantized-ops.md; anything else stays float.
//  2. Decide which eligible nodes become int8. Compute operators (Conv, Gemm, MatMul, Add, Mul,
//     AveragePool, GlobalAveragePool) always do. Operators that keep their input's scale (MaxPool,
//     Relu, Clip, data movement), Lut functions, Concat, Max and Min follow their input: they become int8 when an input
//     is produced by an int8 node; single-input data movement also becomes int8 when it feeds an int8 node (quantizing
//     before or after moving data is the same). So no QuantizeLinear / DequantizeLinear pair is inserted around an
//     operator that gains nothing from int8.
//  3. Walk the nodes in topological order. An int8 node gets int8 versions of its inputs (a
//     QuantizeLinear for a float tensor, a quantized copy of a constant, a Requant where Concat,
//     Max or Min needs another scale), per-channel int8 weights and int32 biases, its output retyped to int8
//     with the calibrated (or inherited) Quant, and the attributes multiplier/shift/act_min/
//     act_max/a_multiplier/b_multiplier. A float node reading an int8 tensor gets a shared
//     DequantizeLinear. Graph outputs that became int8 get a DequantizeLinear that takes over the
//     output's name, so the quantized graph has the float graph's interface.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "quantize/bias_correction.h"
#include "quantize/precision_search.h"
#include "quantize/equalization.h"
#include "quantize/smoothing.h"
#include "quantize/quantize_classify.h"
#include "quantize/quantize_lut.h"
#include "systole/compiler/passes.h"
#include "systole/compiler/accumulator_bound.h"
#include "systole/compiler/quant_math.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {
namespace {

using quant::constantFactor;
using quant::floatData;
using quant::floatsOf;
using quant::isCompute;
using quant::Kind;

/// Log2 of the larger Add input's widen multiplier (|m| < 2^15 is the ISA's limit). A narrower
/// accumulator, or a wider activation, takes fewer: both widened inputs, |x - z| < 2^actBits times
/// 2^bits each, must fit it.
constexpr int kAddMultiplierBits = 14;
int addMultiplierBits(int accBits, int actBits) {
  const int bits = std::min(kAddMultiplierBits, accBits - actBits - 2);
  if (bits < 1)
    throw Error("quantize: a " + std::to_string(accBits) + "-bit accumulator cannot hold an Add of two " +
                std::to_string(actBits) + "-bit activations");
  return bits;
}
/// Softmax: exponentials are 15-bit (exp(0) = 32767, two int8 tables), the table's first 255
/// entries span distances up to ln(2 * 32767 + 2), past which 32767 exp(-x) rounds to 0, and its
/// last entry, where every farther distance (and a masked element) is clamped, is 0; the reciprocal of a row's sum is
/// floor(2^30 / Z): the sum is at least 32767 (the max's entry), so every product e * R stays at or below 2^30.
constexpr double kSoftmaxOne = 32767.0;
/// A masked Softmax element is pushed this far: below -128 for the row max (x <= 127), and past
/// the table's last index for its distance (at most 255 steps of x plus a max up to 255 below it,
/// times an index multiplier >= 254/255). The NPU widens the mask by it (checked against the field).
constexpr int64_t kSoftmaxMaskPush = 1024;
const double kSoftmaxExpRange = std::log(2 * kSoftmaxOne + 2);
constexpr int kSoftmaxRecipShift = 30;

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

/// A [rows][cols] matrix as [cols][rows].
template <typename T>
std::vector<T> transposed(const std::vector<T>& m, int64_t rows, int64_t cols) {
  std::vector<T> t(m.size());
  for (int64_t j = 0; j < rows; ++j)
    for (int64_t k = 0; k < cols; ++k) t[static_cast<size_t>(k * rows + j)] = m[static_cast<size_t>(j * cols + k)];
  return t;
}

Quant perTensor(const ActivationQuant& q) { return Quant{{q.scale}, {q.zero_point}, -1}; }
/// A per-tensor Quant as activation parameters of `bits` bits (the tables of Lut, Softmax and
/// LayerNormalization are int8: 8).
ActivationQuant activationOf(const Quant& q, int bits) { return {q.scale.at(0), q.zero_point.at(0), bits}; }

// ---- steps 2 and 3 (step 1, classification, is quantize_classify.cpp) ----

class Rewriter {
 public:
  Rewriter(Graph& g, const std::map<std::string, TensorRange>& ranges, const WeightPrecision& weights,
           const ChannelMeans& means, BiasCorrection correction, int accBits, int actBits)
      : g_(g),
        ranges_(ranges),
        weights_(weights),
        means_(means),
        correction_(correction),
        accBits_(accBits),
        actBits_(actBits),
        actType_(actBits == 16 ? ElemType::Int16 : ElemType::Int8) {
    if (actBits != 8 && actBits != 16) throw Error("quantize: activations are int8 or int16");
    for (const Value& v : g_.values) names_.insert(v.name);
    for (const Node& n : g_.nodes) names_.insert(n.name);
    readers_ = g_.users();
    const size_t nv = g_.values.size();
    int8_.assign(nv, false);
    dequantized_.assign(nv, -1);
    originalValues_ = nv;
  }

  QuantSummary run() {
    const std::vector<Kind> kind = quant::classifyNodes(g_, actBits_);
    const std::vector<bool> quantized = decide(kind);
    symmetric_ = symmetricSources(kind);

    for (int id : g_.topoOrder()) {
      if (quantized[static_cast<size_t>(id)]) {
        rewrite(id, kind[static_cast<size_t>(id)]);
        ++summary_.quantized_nodes;
      } else {
        std::vector<int> inputs = g_.nodes[static_cast<size_t>(id)].inputs;
        for (int& v : inputs)
          if (isInt8(v)) v = dequantized(v);  // may add nodes: no reference into g_.nodes is held
        g_.nodes[static_cast<size_t>(id)].inputs = std::move(inputs);
        ++summary_.float_nodes;
      }
    }
    std::set<int> renamed;  // a value may be listed as an output twice
    for (int& out : g_.outputs) {
      if (!isInt8(out)) continue;
      const int f = dequantized(out);
      if (renamed.insert(out).second) {
        const std::string name = g_.values[static_cast<size_t>(out)].name;
        g_.values[static_cast<size_t>(out)].name = uniqueName(name + "_q");
        g_.values[static_cast<size_t>(f)].name = name;
      }
      out = f;
    }
    if (fusedLuts_ > 0) eliminateDeadCode(g_);  // the tables folded into their readers'
    g_.verify();  // before compact (which drops the float weights): see quantizeWithRanges
    return summary_;
  }

 private:
  std::vector<bool> decide(const std::vector<Kind>& kind) const {
    const std::vector<int> order = g_.topoOrder();
    const auto users = g_.users();
    std::vector<bool> q(kind.size(), false);
    for (size_t i = 0; i < kind.size(); ++i) q[i] = isCompute(kind[i]);
    // Data movement feeding int8 nodes, Concat included: a space-to-depth of the model's input
    // (YOLO's Focus: four strided Slices and a Concat) moves int8 bytes rather than floats.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const size_t id = static_cast<size_t>(*it);
      if ((kind[id] != Kind::Move && kind[id] != Kind::Concat) || q[id]) continue;
      for (int u : users[static_cast<size_t>(g_.nodes[id].outputs[0])]) q[id] = q[id] || q[static_cast<size_t>(u)];
    }
    for (int idInt : order) {  // scale-keeping operators and Concat after int8 nodes
      const size_t id = static_cast<size_t>(idInt);
      if (kind[id] == Kind::Float || q[id]) continue;
      const Node& n = g_.nodes[id];
      // (a Scale's or a Lut's constant may come first, as in 1 - x; a constant has no producer)
      const bool allInputs =
          kind[id] == Kind::Concat || kind[id] == Kind::Scale || kind[id] == Kind::Extremum || kind[id] == Kind::Lut;
      const size_t dataInputs = allInputs ? n.inputs.size() : 1;
      for (size_t i = 0; i < dataInputs; ++i) {
        const int p = g_.values[static_cast<size_t>(n.inputs[i])].producer;
        if (p >= 0 && q[static_cast<size_t>(p)]) q[id] = true;
      }
    }
    return q;
  }

  /// The values whose int8 form an activation product reads: each operand of a MatMul of two
  /// activations, followed up through data movement and positive scalings (which keep the zero
  /// point) to the value an operator computes.
  std::set<int> symmetricSources(const std::vector<Kind>& kind) const {
    std::set<int> out;
    for (size_t id = 0; id < g_.nodes.size(); ++id) {
      const Node& n = g_.nodes[id];
      if (n.dead || kind[id] != Kind::MatMul || n.inputs.size() != 2 ||
          g_.values[static_cast<size_t>(n.inputs[1])].is_constant)
        continue;
      for (int v : n.inputs) {
        for (int p = g_.values[static_cast<size_t>(v)].producer;
             p >= 0 && (kind[static_cast<size_t>(p)] == Kind::Move || kind[static_cast<size_t>(p)] == Kind::Scale);
             p = g_.values[static_cast<size_t>(v)].producer) {
          const Node& mover = g_.nodes[static_cast<size_t>(p)];
          const auto f = kind[static_cast<size_t>(p)] == Kind::Scale ? constantFactor(g_, mover) : std::nullopt;
          if (kind[static_cast<size_t>(p)] == Kind::Scale && (!f || f->factors.size() != 1)) break;
          v = mover.inputs[f ? f->input : 0];
        }
        out.insert(v);
      }
    }
    return out;
  }

  // -- values --

  bool isInt8(int v) const {
    return v >= 0 && static_cast<size_t>(v) < originalValues_ && int8_[static_cast<size_t>(v)];
  }

  /// The quantization every input of `n` already has, if they are all int8 and agree.
  std::optional<Quant> sharedInputQuant(const Node& n) const {
    std::optional<Quant> common;
    for (int v : n.inputs) {
      if (!isInt8(v)) return std::nullopt;
      const Quant& q = *g_.values[static_cast<size_t>(v)].quant;
      if (common && !(*common == q)) return std::nullopt;
      common = q;
    }
    return common;
  }

  std::string uniqueName(const std::string& base) {
    std::string name = base;
    for (int i = 1; names_.count(name); ++i) name = base + "_" + std::to_string(i);
    names_.insert(name);
    return name;
  }

  int newValue(const std::string& base, ElemType type, std::vector<int64_t> shape, std::optional<Quant> quant) {
    Value v;
    v.name = uniqueName(base);
    v.type = type;
    v.shape = std::move(shape);
    v.quant = std::move(quant);
    return g_.addValue(std::move(v));
  }

  int newConstant(const std::string& base, ElemType type, std::vector<int64_t> shape, Quant quant,
                  std::vector<uint8_t> data) {
    const int id = newValue(base, type, std::move(shape), std::move(quant));
    g_.values[static_cast<size_t>(id)].is_constant = true;
    g_.values[static_cast<size_t>(id)].data = std::move(data);
    return id;
  }

  int newNode(const std::string& base, OpType op, std::vector<int> inputs, int output,
              std::map<std::string, AttrValue> attrs = {}) {
    Node n;
    n.name = uniqueName(base);
    n.op = op;
    n.inputs = std::move(inputs);
    n.outputs = {output};
    n.attrs = std::move(attrs);
    return g_.addNode(std::move(n));
  }

  const TensorRange& range(int v) const {
    const std::string& name = g_.values[static_cast<size_t>(v)].name;
    auto it = ranges_.find(name);
    if (it == ranges_.end()) throw Error("quantize: no calibration range for tensor '" + name + "'");
    return it->second;
  }

  /// The value's quantization from its calibrated range: symmetric (zero point 0) for the sources
  /// of activation products (symmetricSources), so that no Requant is needed before them.
  Quant calibrated(int v) const {
    const TensorRange& r = range(v);
    if (symmetric_.count(v)) return perTensor(chooseSymmetricQuant(std::max(std::abs(r.lo), std::abs(r.hi)), actBits_));
    return perTensor(chooseActivationQuant(r.lo, r.hi, actBits_));
  }

  Quant constantQuant(const Value& v) const {
    const std::vector<float> d = floatsOf(v);
    double lo = 0, hi = 0;
    for (float x : d)
      if (std::isfinite(x)) {
        lo = std::min(lo, double{x});
        hi = std::max(hi, double{x});
      }
    return perTensor(chooseActivationQuant(lo, hi, actBits_));
  }

  /// The int8 form of value `v` (an original value id), with Quant `target` if given.
  int int8Input(int v, const std::optional<Quant>& target = std::nullopt) {
    if (isInt8(v)) {
      const Quant& have = *g_.values[static_cast<size_t>(v)].quant;
      return target && have != *target ? requantized(v, *target) : v;
    }
    const Value& src = g_.values[static_cast<size_t>(v)];  // copied from below: adding values moves it
    const bool constant = src.is_constant;
    const std::string name = src.name;
    const std::vector<int64_t> shape = src.shape;
    const Quant q = target ? *target : constant ? constantQuant(src) : calibrated(v);
    for (const Cached& c : quantized_)
      if (c.value == v && c.quant == q) return c.id;
    int id;
    if (constant) {
      const std::vector<float> d = floatsOf(src);
      std::vector<uint8_t> bytes;
      for (float x : d)
        appendLane(bytes, quantizeFloat(x, q.scale[0], q.zero_point[0], actBits_), static_cast<size_t>(actBits_ / 8));
      id = newConstant(name + "_q", actType_, shape, q, std::move(bytes));
    } else {
      id = newValue(name + "_q", actType_, shape, q);
      newNode(name + "_quantize", Op::QuantizeLinear, {v}, id);
      ++summary_.quantize_linear;
    }
    quantized_.push_back({v, q, id});
    return id;
  }

  int requantized(int v, const Quant& target) {
    for (const Cached& c : requantized_)
      if (c.value == v && c.quant == target) return c.id;
    const std::string name = g_.values[static_cast<size_t>(v)].name;
    const std::vector<int64_t> shape = g_.values[static_cast<size_t>(v)].shape;
    const FixedMultiplier m =
        requantMultiplier(static_cast<double>(g_.values[static_cast<size_t>(v)].quant->scale.at(0)) /
                          static_cast<double>(target.scale.at(0)));
    const int id = newValue(name + "_rq", actType_, shape, target);
    newNode(name + "_requant", Op::Requant, {v}, id,
            {{"multiplier", std::vector<int64_t>{m.multiplier}}, {"shift", std::vector<int64_t>{m.shift}}});
    ++summary_.requant;
    requantized_.push_back({v, target, id});
    return id;
  }

  /// The float form of an int8 value (a shared DequantizeLinear).
  int dequantized(int v) {
    if (dequantized_[static_cast<size_t>(v)] >= 0) return dequantized_[static_cast<size_t>(v)];
    const std::string name = g_.values[static_cast<size_t>(v)].name;
    const std::vector<int64_t> shape = g_.values[static_cast<size_t>(v)].shape;
    const int id = newValue(name + "_dq", ElemType::Float32, shape, std::nullopt);
    newNode(name + "_dequantize", Op::DequantizeLinear, {v}, id);
    ++summary_.dequantize_linear;
    dequantized_[static_cast<size_t>(v)] = id;
    return id;
  }

  void retypeOutput(int y, const Quant& q) {
    Value& v = g_.values[static_cast<size_t>(y)];
    v.type = actType_;
    v.quant = q;
    int8_[static_cast<size_t>(y)] = true;
  }

  // -- nodes --

  static void setRequantize(Node& n, const std::vector<FixedMultiplier>& m) {
    std::vector<int64_t> mult, shift;
    for (const FixedMultiplier& f : m) {
      mult.push_back(f.multiplier);
      shift.push_back(f.shift);
    }
    n.attrs["multiplier"] = std::move(mult);
    n.attrs["shift"] = std::move(shift);
  }

  static void setClamp(Node& n, const ActivationClamp& c) {
    n.attrs["act_min"] = int64_t{c.lo};
    n.attrs["act_max"] = int64_t{c.hi};
  }

  /// The clamp of the node's fused activation, in the output's quantized domain; removes the
  /// float description of it.
  ActivationClamp fusedClamp(Node& n, const Quant& qy) const {
    const std::string a = n.getString("activation", "");
    ActivationClamp c = fullRange(actBits_);
    if (a == "relu") c = reluClamp(activationOf(qy, actBits_));
    if (a == "clip")
      c = clipClamp(activationOf(qy, actBits_), n.getFloat("clip_min", -std::numeric_limits<double>::infinity()),
                    n.getFloat("clip_max", std::numeric_limits<double>::infinity()));
    n.attrs.erase("activation");
    n.attrs.erase("clip_min");
    n.attrs.erase("clip_max");
    return c;
  }

  /// Conv / Gemm / MatMul: x quantized, weights per channel, bias int32, per-channel requantize.
  /// `wf`: the float weights in qw's layout (for fitAccumulator).
  void rewriteMatrix(Node& n, QuantizedWeights qw, const std::vector<int64_t>& wShape, int axis, std::string wName,
                     std::optional<std::vector<float>> bias, const std::vector<float>& wf) {
    n.inputs[0] = int8Input(n.inputs[0]);
    const float sx = g_.values[static_cast<size_t>(n.inputs[0])].quant->scale.at(0);
    fitToAccumulator(n, qw, wShape, axis, bias, wf);
    const int y = n.outputs[0];
    const Quant qy = calibrated(y);
    const size_t channels = qw.scale.size();
    n.inputs[1] = newConstant(wName + "_q", ElemType::Int8, wShape,
                              Quant{qw.scale, std::vector<int32_t>(channels, 0), axis}, bytesOf(qw.data));
    if (bias) {
      std::vector<float> biasScale(channels);
      for (size_t c = 0; c < channels; ++c) biasScale[c] = sx * qw.scale[c];
      const std::string bName =
          n.inputs.size() > 2 && n.inputs[2] >= 0 ? g_.values[static_cast<size_t>(n.inputs[2])].name : n.name + "_bias";
      const int b = newConstant(bName + "_q", ElemType::Int32, {static_cast<int64_t>(channels)},
                                Quant{biasScale, std::vector<int32_t>(channels, 0), 0},
                                bytesOf(quantizeBias(*bias, sx, qw.scale)));
      n.inputs.resize(3);
      n.inputs[2] = b;
    }
    std::vector<FixedMultiplier> m;
    for (size_t c = 0; c < channels; ++c)
      m.push_back(requantMultiplier(double{sx} * double{qw.scale[c]} / double{qy.scale[0]}));
    setRequantize(n, m);
    setClamp(n, fusedClamp(n, qy));
    if (const int bits = weightBits(n); bits != 8) n.attrs["weight_bits"] = int64_t{bits};
    retypeOutput(y, qy);
  }

  int weightBits(const Node& n) const { return weights_.of(n.name); }

  /// The float weights, copied (the accumulator fit re-rounds them).
  static std::vector<float> floatCopy(const Value& w) {
    const float* f = floatData(w);
    return std::vector<float>(f, f + elementCount(w.shape));
  }

  /// Coarsens the channels whose sums could pass the accumulator (accumulator_bound.h): a narrow
  /// one's saturation, or int32's wrap-around. At int8 activations an int32 accumulator is passed
  /// only by a bias quantizeBias saturated (a channel of near-zero weights, found on PaddleOCR's
  /// recognizer: its sums wrapped from -2^31 to +2^31); at int16 also by wide layers' worst-case
  /// sums. It runs after bias correction, which measured the rounding of the finer scale: a
  /// coarsened channel's correction is for that rounding (bias correction is on for int4 layers
  /// only).
  void fitToAccumulator(Node& n, QuantizedWeights& qw, const std::vector<int64_t>& wShape, int axis,
                        const std::optional<std::vector<float>>& bias, const std::vector<float>& wf) {
    const Quant& qx = *g_.values[static_cast<size_t>(n.inputs[0])].quant;
    const int fitted = fitAccumulator(wf.data(), wShape, axis, weightBits(n), bias, qx.scale.at(0), qx.zero_point.at(0),
                                      isa::arith::accumulatorMax(accBits_), qw, actBits_);
    if (fitted > 0) n.attrs["accumulator_fit"] = int64_t{fitted};
  }

  /// A multiplier the NPU loads into an accumulator row: accumulator.bits - 1 bits (31 at int32).
  /// Softmax and LayerNormalization keep 31-bit ones: they run on the NPU only with int32 lanes.
  FixedMultiplier requantMultiplier(double r) const { return quantizeMultiplier(r, accBits_ - 1); }

  /// The calibration means of the layer's input channels, if its bias is to be corrected.
  const std::vector<double>* inputMeans(const Node& n, int64_t channels) const {
    if (correction_ == BiasCorrection::Off || (correction_ == BiasCorrection::Narrow && weightBits(n) == 8))
      return nullptr;
    const auto it = means_.find(g_.values[static_cast<size_t>(n.inputs[0])].name);
    return it != means_.end() && static_cast<int64_t>(it->second.size()) == channels ? &it->second : nullptr;
  }

  /// Subtracts the rounding's output shift from the bias (a layer without one gets one).
  static void correct(std::optional<std::vector<float>>& bias, const std::vector<double>& shift) {
    if (!bias) bias.emplace(shift.size(), 0.0f);
    for (size_t c = 0; c < shift.size(); ++c) (*bias)[c] = static_cast<float>((*bias)[c] - shift[c]);
  }

  std::optional<std::vector<float>> biasOf(const Node& n, int64_t channels) const {
    if (n.inputs.size() <= 2 || n.inputs[2] < 0) return std::nullopt;
    std::vector<float> b = floatsOf(g_.values[static_cast<size_t>(n.inputs[2])]);
    if (b.size() == 1) b.assign(static_cast<size_t>(channels), b[0]);  // Gemm's broadcast scalar C
    return b;
  }

  /// Rewrites node `id` into its int8 form (docs/quantized-ops.md), one member per kind.
  void rewrite(int id, Kind kind) {
    Node n = g_.nodes[static_cast<size_t>(id)];  // a copy: adding nodes moves g_.nodes
    const int y = n.outputs[0];
    switch (kind) {
      case Kind::Conv: rewriteConv(n); break;
      case Kind::Gemm:
      case Kind::MatMul: rewriteMatrixProduct(n, kind); break;
      case Kind::Add: rewriteAdd(n, y); break;
      case Kind::AveragePool:
      case Kind::GlobalAveragePool: rewriteAveragePool(n, y, kind); break;
      case Kind::MaxPool:
      case Kind::Move:
        n.inputs[0] = int8Input(n.inputs[0]);
        retypeOutput(y, *g_.values[static_cast<size_t>(n.inputs[0])].quant);
        break;
      case Kind::Mul: rewriteMul(n, y); break;
      case Kind::Scale: extendsLutChain(n) ? rewriteLut(n, y) : rewriteScale(n, y); break;
      case Kind::Lut: rewriteLut(n, y); break;
      case Kind::Softmax: rewriteSoftmax(n, y); break;
      case Kind::LayerNorm: rewriteLayerNorm(n, y); break;
      case Kind::Relu:
      case Kind::Clip: rewriteClamp(n, y, kind); break;
      case Kind::Concat:
      case Kind::Extremum: rewriteSharedScale(n, y); break;
      case Kind::Float: throw Error("quantize: internal error: float node '" + n.name + "' marked int8");
    }
    g_.nodes[static_cast<size_t>(id)] = std::move(n);
  }

  void rewriteConv(Node& n) {
    const Value& w = g_.values[static_cast<size_t>(n.inputs[1])];
    const std::vector<int64_t> shape = w.shape;
    const std::string wName = w.name;
    QuantizedWeights qw = quantizeWeightsPerChannel(floatData(w), shape, 0, weightBits(n));
    auto bias = biasOf(n, shape[0]);
    if (const auto* mean = inputMeans(n, shape[1] * n.getInt("group", 1)))
      correct(bias, convOutputShift(floatData(w), qw, shape, n.getInt("group", 1), *mean));
    const std::vector<float> wf = floatCopy(w);
    rewriteMatrix(n, std::move(qw), shape, 0, wName, std::move(bias), wf);
  }

  void rewriteMatrixProduct(Node& n, Kind kind) {
    if (!g_.values[static_cast<size_t>(n.inputs[1])].is_constant) return rewriteActivationProduct(n, n.outputs[0]);
    const Value& w = g_.values[static_cast<size_t>(n.inputs[1])];
    const std::string wName = w.name;
    int64_t K = w.shape[0], N = w.shape[1];
    QuantizedWeights qw;
    std::vector<float> wf = floatCopy(w);
    if (kind == Kind::Gemm && n.getInt("transB", 0) != 0) {
      // Fold transB: quantize the [N][K] rows (channel N is axis 0 there: the same values per
      // channel, so the same scales and bytes), then transpose the int8 result to [K][N].
      std::swap(K, N);
      QuantizedWeights rows = quantizeWeightsPerChannel(floatData(w), {N, K}, 0, weightBits(n));
      qw.scale = std::move(rows.scale);
      qw.data = transposed(rows.data, N, K);
      wf = transposed(wf, N, K);
    } else {
      qw = quantizeWeightsPerChannel(floatData(w), {K, N}, 1, weightBits(n));
    }
    auto bias = biasOf(n, N);
    if (const auto* mean = inputMeans(n, K))
      correct(bias, matrixOutputShift(floatData(w), qw, K, N, n.getInt("transB", 0) != 0, *mean));
    n.attrs.erase("transA");
    n.attrs.erase("transB");
    n.attrs.erase("alpha");
    n.attrs.erase("beta");
    rewriteMatrix(n, std::move(qw), {K, N}, 1, wName, std::move(bias), wf);
  }

  /// A product of two activations: both at zero point 0 (sum a b needs no correction terms), so an
  /// operand quantized otherwise gets a Requant to its symmetric form; one multiplier per tensor.
  void rewriteActivationProduct(Node& n, int y) {
    for (size_t i = 0; i < 2; ++i) n.inputs[i] = int8Input(n.inputs[i], symmetricQuant(n.inputs[i]));
    const double sa = g_.values[static_cast<size_t>(n.inputs[0])].quant->scale.at(0);
    const double sb = g_.values[static_cast<size_t>(n.inputs[1])].quant->scale.at(0);
    const Quant qy = calibrated(y);
    setRequantize(n, {requantMultiplier(sa * sb / double{qy.scale[0]})});
    setClamp(n, fusedClamp(n, qy));
    retypeOutput(y, qy);
  }

  /// The zero-point-0 quantization of value `v`: its own when it is int8 at zero point 0, else
  /// the symmetric one covering its range (int8 or calibrated).
  Quant symmetricQuant(int v) const {
    double lo, hi;
    if (isInt8(v)) {
      const Quant& q = *g_.values[static_cast<size_t>(v)].quant;
      if (q.zero_point.at(0) == 0) return q;
      lo = q.scale.at(0) * (isa::arith::activationMin(actBits_) - q.zero_point[0]);
      hi = q.scale.at(0) * (isa::arith::activationMax(actBits_) - q.zero_point[0]);
    } else {
      const TensorRange& r = range(v);
      lo = r.lo, hi = r.hi;
    }
    return perTensor(chooseSymmetricQuant(std::max(std::abs(lo), std::abs(hi)), actBits_));
  }

  void rewriteAdd(Node& n, int y) {
    n.inputs[0] = int8Input(n.inputs[0]);
    n.inputs[1] = int8Input(n.inputs[1]);
    const double sa = g_.values[static_cast<size_t>(n.inputs[0])].quant->scale.at(0);
    const double sb = g_.values[static_cast<size_t>(n.inputs[1])].quant->scale.at(0);
    const Quant qy = calibrated(y);
    const double smax = std::max(sa, sb), unit = std::ldexp(1.0, addMultiplierBits(accBits_, actBits_));
    n.attrs["a_multiplier"] = static_cast<int64_t>(std::llround(sa / smax * unit));
    // a - b is a + (-1) * b: the quantized node is an Add whose b multiplier is negative.
    const int64_t sign = n.op == Op::Sub ? -1 : 1;
    n.op = Op::Add;
    n.attrs["b_multiplier"] = sign * static_cast<int64_t>(std::llround(sb / smax * unit));
    setRequantize(n, {requantMultiplier(smax / (unit * double{qy.scale[0]}))});
    setClamp(n, fusedClamp(n, qy));
    retypeOutput(y, qy);
  }

  void rewriteAveragePool(Node& n, int y, Kind kind) {
    n.inputs[0] = int8Input(n.inputs[0]);
    const Value& x = g_.values[static_cast<size_t>(n.inputs[0])];
    int64_t window = 1;
    if (kind == Kind::AveragePool)
      for (int64_t k : n.getInts("kernel_shape")) window *= k;
    else
      for (size_t d = 2; d < x.shape.size(); ++d) window *= x.shape[d];
    const Quant qy = calibrated(y);
    setRequantize(
        n, {requantMultiplier(double{x.quant->scale.at(0)} / (double{qy.scale[0]} * static_cast<double>(window)))});
    retypeOutput(y, qy);
  }

  void rewriteMul(Node& n, int y) {
    // The per-channel operand goes second (the kernel and the tiler broadcast that one).
    if (g_.values[static_cast<size_t>(n.inputs[0])].shape != g_.values[static_cast<size_t>(y)].shape)
      std::swap(n.inputs[0], n.inputs[1]);
    n.inputs[0] = int8Input(n.inputs[0]);
    n.inputs[1] = int8Input(n.inputs[1]);
    const double sa = g_.values[static_cast<size_t>(n.inputs[0])].quant->scale.at(0);
    const double sb = g_.values[static_cast<size_t>(n.inputs[1])].quant->scale.at(0);
    const Quant qy = calibrated(y);
    setRequantize(n, {requantMultiplier(sa * sb / double{qy.scale[0]})});
    setClamp(n, fullRange(actBits_));
    retypeOutput(y, qy);
  }

  void rewriteScale(Node& n, int y) {
    const auto [factors, a] = *constantFactor(g_, n);
    n.inputs = {int8Input(n.inputs[a])};
    n.attrs.clear();
    Quant qy = *g_.values[static_cast<size_t>(n.inputs[0])].quant;
    if (factors.size() == 1) {
      // y = f * x with f > 0 is x's int8 values under the scale f * s_x (same zero point): an
      // Identity in the int8 graph, exact and free (on the NPU an alias of x's buffer).
      for (float& scale : qy.scale) scale = static_cast<float>(factors[0] * double{scale});
      n.op = Op::Identity;
    } else {
      // Per channel: a Requant whose multiplier for channel c encodes f_c s_x / s_y.
      qy = calibrated(y);
      std::vector<FixedMultiplier> m;
      for (double f : factors)
        m.push_back(requantMultiplier(f * double{g_.values[static_cast<size_t>(n.inputs[0])].quant->scale.at(0)} /
                                      double{qy.scale[0]}));
      n.op = Op::Requant;
      setRequantize(n, m);
    }
    retypeOutput(y, qy);
  }

  /// A table function of one int8 input. Reading the output of another table that nothing else
  /// reads, it takes that table's input instead, its table the composition of the two float
  /// functions, rounded once (PP-LCNet's HardSwish and learnable affine: one table, not two).
  void rewriteLut(Node& n, int y) {
    size_t a = 0;  // the activation; any other input is a one-element constant
    while (g_.values[static_cast<size_t>(n.inputs[a])].is_constant) ++a;
    const Quant qy = calibrated(y);
    LutChain chain;
    if (const auto it = luts_.find(n.inputs[a]); it != luts_.end() && soleReader(n.inputs[a])) {
      chain = {lutFloats(g_, n, it->second.floats), it->second.input, it->second.function + "+" + n.op.name()};
      ++fusedLuts_;
    } else {
      const int x = int8Input(n.inputs[a]);
      chain = {lutFloats(g_, n, lutLevels(activationOf(*g_.values[static_cast<size_t>(x)].quant, 8))), x, n.op.name()};
    }
    n.inputs = {chain.input};  // a constant operand is in the table now
    n.attrs = {{"function", chain.function}, {"table", lutTableOf(chain.floats, activationOf(qy, 8))}};
    n.op = Op::Lut;
    retypeOutput(y, qy);
    luts_[y] = std::move(chain);
  }

  /// A scale by one-element constants of a table's output that nothing else reads: one table.
  bool extendsLutChain(const Node& n) const {
    int activations = 0;
    for (int v : n.inputs) {
      const Value& c = g_.values[static_cast<size_t>(v)];
      if (c.is_constant && c.elements() != 1) return false;
      if (c.is_constant) continue;
      if (++activations > 1 || !luts_.count(v) || !soleReader(v)) return false;
    }
    return activations == 1;
  }

  /// `v` is read by one node and is not a graph output.
  bool soleReader(int v) const {
    return readers_[static_cast<size_t>(v)].size() == 1 &&
           std::find(g_.outputs.begin(), g_.outputs.end(), v) == g_.outputs.end();
  }

  /// Softmax on int8 (the integer algorithm is the int8 kernel's, normalization.cpp): the output
  /// is a probability at zero point 0 (so a product with it needs no zero-point correction), the
  /// largest calibrated one at 127. The exponential is a table over 255 steps of t of the distance to the
  /// row's max, its 256th entry 0 (masked elements and padding lanes): t = 255 s_x / 254 while 255
  /// steps of s_x reach kSoftmaxExpRange, that range over 254 steps beyond.
  void rewriteSoftmax(Node& n, int y) {
    const int x = int8Input(n.inputs[0]);
    const double sx = g_.values[static_cast<size_t>(x)].quant->scale.at(0);
    // The calibrated largest probability at 127 (zero point 0): attention over many keys is flat,
    // its probabilities far below 1, and 1/127 steps would leave them a step or two.
    const double pMax = std::clamp(range(y).hi, 1.0 / kActMaxF, 1.0);
    const Quant qy = perTensor(chooseSymmetricQuant(pMax));
    const double t = std::min(255.0 * sx, kSoftmaxExpRange) / 254.0;
    std::vector<int64_t> hi(256), lo(256);  // e = 256 hi + lo: 15 bits of 32767 exp(-t i), two int8 tables
    for (size_t i = 0; i < hi.size(); ++i) {
      const int64_t e = i == 255 ? 0 : std::llround(kSoftmaxOne * std::exp(-t * static_cast<double>(i)));
      hi[i] = e / 256;
      lo[i] = e % 256 - 128;  // stored offset by -128 (widened with zero point -128)
    }
    const FixedMultiplier index = quantizeMultiplier(sx / t);
    std::vector<int> inputs = {x};
    if (n.inputs.size() > 1) {  // the mask: int8, 1 where the float form keeps nothing (0)
      const Value& keep = g_.values[static_cast<size_t>(n.inputs[1])];
      std::vector<uint8_t> masked;
      for (float k : floatsOf(keep)) masked.push_back(k == 0.0f ? 1 : 0);
      inputs.push_back(newConstant(keep.name + "_masked", ElemType::Int8, keep.shape, Quant{{1.0f}, {0}, -1}, masked));
    }
    n.inputs = inputs;
    n.attrs = {{"table", hi},
               {"table_lo", lo},
               {"index_multiplier", int64_t{index.multiplier}},
               {"index_shift", int64_t{index.shift}},
               {"recip_shift", int64_t{kSoftmaxRecipShift}}};
    n.attrs["mask_push"] = kSoftmaxMaskPush;  // the model's mask, or the NPU's padding lanes
    // y = e * floor(2^k / Z) * 2^-k / s_y: the row's exponentials over their sum, at the output scale.
    setRequantize(n, {quantizeMultiplier(1.0 / (std::ldexp(1.0, kSoftmaxRecipShift) * double{qy.scale[0]}))});
    retypeOutput(y, qy);
  }

  /// LayerNormalization on int8 (the integer algorithm is the int8 kernel's, normalization.cpp):
  /// with X = x - z_x and a row of C, D = C X - sum X (= C (X - mean)), D' = round(D / 2C) holds
  /// (X - mean) / 2 in int8 for the variance V = sum D'^2 + eps (~ C var / 4), R = 2^k / sqrt(V),
  /// and D R = 2 sqrt(C) 2^k (X - mean) / sigma. Each channel's gamma is the multiplier of a first
  /// requantize to t = gamma * normalized (symmetric, at the scale of the output's range plus the
  /// largest |beta|); beta is added to t widened by 2^8, and a second requantize gives y. k keeps
  /// |D R| <= C 2^(k+1) (|X - mean| <= 2 sqrt(V)) within 2^30.
  void rewriteLayerNorm(Node& n, int y) {
    const int x = int8Input(n.inputs[0]);
    const Value& xv = g_.values[static_cast<size_t>(x)];
    const double sx = xv.quant->scale.at(0);
    const int64_t C = xv.shape.back();
    const std::vector<float> gamma = floatsOf(g_.values[static_cast<size_t>(n.inputs[1])]);
    std::vector<float> beta(gamma.size(), 0.0f);
    if (n.inputs.size() > 2 && n.inputs[2] >= 0) beta = floatsOf(g_.values[static_cast<size_t>(n.inputs[2])]);
    const double eps = n.getFloat("epsilon", 1e-5);
    const Quant qy = calibrated(y);
    const TensorRange& ry = range(y);
    double betaMax = 0;
    for (float b : beta) betaMax = std::max(betaMax, std::abs(double{b}));
    const double st = chooseSymmetricQuant(std::max(std::abs(ry.lo), std::abs(ry.hi)) + betaMax).scale;
    int log2C = 0;
    while ((int64_t{1} << log2C) < C) ++log2C;
    const int k = 29 - log2C;
    const double unit = std::sqrt(static_cast<double>(C)) * std::ldexp(1.0, k + 1);  // D R per standard deviation
    std::vector<int64_t> gm, gs, bq;
    for (size_t j = 0; j < gamma.size(); ++j) {
      const FixedMultiplier m = quantizeMultiplier(std::abs(double{gamma[j]}) / (st * unit));
      gm.push_back(gamma[j] < 0 ? -int64_t{m.multiplier} : m.multiplier);
      gs.push_back(m.shift);
      bq.push_back(std::llround(double{beta[j]} / st * 256.0));
    }
    const FixedMultiplier stats = quantizeMultiplier(1.0 / (2.0 * static_cast<double>(C)));
    n.inputs = {x};
    n.attrs = {{"stats_multiplier", int64_t{stats.multiplier}},
               {"stats_shift", int64_t{stats.shift}},
               {"epsilon_q", std::max<int64_t>(1, std::llround(static_cast<double>(C) * eps / (4.0 * sx * sx)))},
               {"rsqrt_shift", int64_t{k}},
               {"gamma_multiplier", gm},
               {"gamma_shift", gs},
               {"beta_q", bq}};
    setRequantize(n, {quantizeMultiplier(st / (256.0 * double{qy.scale[0]}))});
    retypeOutput(y, qy);
  }

  void rewriteClamp(Node& n, int y, Kind kind) {
    n.inputs[0] = int8Input(n.inputs[0]);
    const Quant q = *g_.values[static_cast<size_t>(n.inputs[0])].quant;
    if (kind == Kind::Relu) {
      setClamp(n, reluClamp(activationOf(q, actBits_)));
    } else {
      double lo = n.getFloat("min", -std::numeric_limits<double>::infinity());
      double hi = n.getFloat("max", std::numeric_limits<double>::infinity());
      if (n.inputs.size() > 1 && n.inputs[1] >= 0) lo = floatsOf(g_.values[static_cast<size_t>(n.inputs[1])])[0];
      if (n.inputs.size() > 2 && n.inputs[2] >= 0) hi = floatsOf(g_.values[static_cast<size_t>(n.inputs[2])])[0];
      setClamp(n, clipClamp(activationOf(q, actBits_), lo, hi));
      n.inputs.resize(1);
      n.attrs.erase("min");
      n.attrs.erase("max");
    }
    retypeOutput(y, q);
  }

  void rewriteSharedScale(Node& n, int y) {
    // One scale for all inputs: theirs if they already agree, else the output's own. (Max
    // and Min then compare int8 values as the real ones compare.)
    const std::optional<Quant> shared = sharedInputQuant(n);
    const Quant qy = shared ? *shared : calibrated(y);
    for (int& v : n.inputs) v = int8Input(v, qy);
    retypeOutput(y, qy);
  }

  struct Cached {
    int value;
    Quant quant;
    int id;
  };

  Graph& g_;
  const std::map<std::string, TensorRange>& ranges_;
  const WeightPrecision& weights_;
  /// A Lut's output: its function's floats for the 256 levels of its int8 input, before rounding.
  struct LutChain {
    std::vector<float> floats;
    int input = -1;
    std::string function;
  };
  std::map<int, LutChain> luts_;
  std::vector<std::vector<int>> readers_;  // of the original values: the nodes that read each
  int fusedLuts_ = 0;
  const ChannelMeans& means_;
  BiasCorrection correction_;
  int accBits_;              // types.accumulator (32: no fit, full multipliers)
  int actBits_;              // types.activation: 8 or 16
  ElemType actType_;         // the quantized activations' type
  std::set<int> symmetric_;  // values quantized at zero point 0 (activation products read them)
  std::set<std::string> names_;
  size_t originalValues_ = 0;
  std::vector<bool> int8_;        // original value id -> produced by an int8 node (retyped in place)
  std::vector<int> dequantized_;  // original value id -> its DequantizeLinear output
  std::vector<Cached> quantized_, requantized_;
  QuantSummary summary_;
};

}  // namespace

namespace {

/// A Concat needs one scale for all its inputs. An input computed by an operator that
/// requantizes anyway (Conv, Gemm, MatMul, Add) and read by nothing else can produce that scale
/// directly: give it and the Concat's output the union of their ranges, so no Requant is needed.
std::map<std::string, TensorRange> shareConcatRanges(const Graph& g, std::map<std::string, TensorRange> ranges) {
  const auto users = g.users();
  for (const Node& n : g.nodes) {
    if (n.dead || n.op != Op::Concat || !ranges.count(g.values[static_cast<size_t>(n.outputs[0])].name)) continue;
    std::vector<std::string> group = {g.values[static_cast<size_t>(n.outputs[0])].name};
    for (int v : n.inputs) {
      const Value& val = g.values[static_cast<size_t>(v)];
      if (val.producer < 0 || users[static_cast<size_t>(v)].size() != 1 || !ranges.count(val.name)) continue;
      const OpType& op = g.nodes[static_cast<size_t>(val.producer)].op;
      if (op == Op::Conv || op == Op::Gemm || op == Op::MatMul || op == Op::Add) group.push_back(val.name);
    }
    TensorRange all = ranges.at(group[0]);
    for (const auto& name : group)
      all.lo = std::min(all.lo, ranges.at(name).lo), all.hi = std::max(all.hi, ranges.at(name).hi);
    for (const auto& name : group) ranges[name] = all;
  }
  return ranges;
}

}  // namespace

QuantSummary quantizeWithRanges(Graph& g, const std::map<std::string, TensorRange>& calibratedRanges,
                                const WeightPrecision& weights, const ChannelMeans& means, BiasCorrection correction,
                                int accumulatorBits, int activationBits) {
  const auto ranges = shareConcatRanges(g, calibratedRanges);
  g.verify();
  for (const Value& v : g.values)
    if (v.type == ElemType::Int8 || v.type == ElemType::Int16 || v.quant)
      throw Error("quantize: the graph is already quantized ('" + v.name + "')");
  // The rewrite runs on a copy so that g stays as it was if it fails half-way. The constants'
  // bytes (the weights: the model's whole size) move to the copy instead of being copied, and move
  // back on failure: until the final compact the rewrite only appends values, so every original
  // value keeps its index.
  std::vector<std::vector<uint8_t>> bytes(g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) bytes[i] = std::move(g.values[i].data);
  Graph work = g;
  for (size_t i = 0; i < bytes.size(); ++i) work.values[i].data = std::move(bytes[i]);
  QuantSummary summary;
  try {
    summary = Rewriter(work, ranges, weights, means, correction, accumulatorBits, activationBits).run();
  } catch (...) {
    for (size_t i = 0; i < g.values.size(); ++i) g.values[i].data = std::move(work.values[i].data);
    throw;
  }
  work.compact();
  g = std::move(work);
  return summary;
}

std::vector<std::pair<std::string, int64_t>> accumulatorFittedLayers(const Graph& quantized) {
  std::vector<std::pair<std::string, int64_t>> layers;
  for (const Node& n : quantized.nodes)
    if (const int64_t channels = n.getInt("accumulator_fit", 0); channels > 0) layers.emplace_back(n.name, channels);
  return layers;
}

std::vector<std::pair<std::string, int>> matrixWeightWidths(const Graph& quantized) {
  std::vector<std::pair<std::string, int>> layers;
  for (const Node& n : quantized.nodes)
    if (quant::isMatrixLayer(quantized, n) && quantized.values[static_cast<size_t>(n.inputs[1])].type == ElemType::Int8)
      layers.emplace_back(n.name, static_cast<int>(n.getInt("weight_bits", 8)));
  return layers;
}

namespace {

/// quantize() after smoothing: calibration, then the weight widths (searched or given).
QuantSummary quantizeCalibrated(Graph& g, const std::vector<TensorMap>& calibration, const QuantOptions& opts) {
  auto ranges = calibrate(g, calibration, opts);
  // The split's partial products are new tensors: their ranges come from a second calibration.
  if (splitMixedRangeConcats(g, ranges) > 0) ranges = calibrate(g, calibration, opts);
  const bool narrow = opts.weights.bits < 8 || !opts.weights.layers.empty() || opts.search_widths.size() > 1;
  const bool measure =
      opts.bias_correction == BiasCorrection::All || (opts.bias_correction == BiasCorrection::Narrow && narrow);
  const ChannelMeans means =
      measure ? inputChannelMeans(g, calibration, opts.num_samples > 0 ? opts.num_samples : INT_MAX, opts.jobs)
              : ChannelMeans{};
  if (opts.search_widths.empty())
    return quantizeWithRanges(g, ranges, opts.weights, means, opts.bias_correction, opts.accumulator_bits,
                              opts.activation_bits);
  QuantSummary found;
  const WeightPrecision weights = searchWeightPrecision(g, ranges, calibration, opts, means, found);
  QuantSummary summary =
      quantizeWithRanges(g, ranges, weights, means, opts.bias_correction, opts.accumulator_bits, opts.activation_bits);
  summary.layers = std::move(found.layers);
  summary.searched_cosine = found.searched_cosine;
  summary.search_samples = found.search_samples;
  summary.held_out_cosine = found.held_out_cosine;
  summary.held_out_samples = found.held_out_samples;
  return summary;
}

}  // namespace

QuantSummary quantize(Graph& g, const std::vector<TensorMap>& calibration, const QuantOptions& opts) {
  const int samples = opts.num_samples > 0 ? opts.num_samples : INT_MAX;
  equalizeLayers(g, opts.equalization, calibration, samples, opts.jobs);
  const SmoothingSummary smoothed =
      opts.smoothing > 0 ? smoothActivations(g, calibration, opts.smoothing, samples, opts.jobs) : SmoothingSummary{};
  QuantSummary summary = quantizeCalibrated(g, calibration, opts);
  summary.smoothed_norms = smoothed.norms;
  summary.smoothed_layers = smoothed.layers;
  return summary;
}

}  // namespace systole::compiler
