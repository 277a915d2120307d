// Step 1 of the quantization rewrite: classification (see quantize.cpp for the three steps).
#include "quantize/quantize_classify.h"

#include <algorithm>
#include <cmath>

#include "ops/op_def.h"
#include "quantize/quantize_lut.h"
#include "systole/compiler/quant_math.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler::quant {

bool isCompute(Kind k) {
  return k == Kind::Conv || k == Kind::Gemm || k == Kind::MatMul || k == Kind::Add || k == Kind::Mul ||
         k == Kind::AveragePool || k == Kind::GlobalAveragePool || k == Kind::Softmax || k == Kind::LayerNorm;
}

const float* floatData(const Value& v) {
  if (v.data.size() != static_cast<size_t>(v.elements()) * sizeof(float))
    throw Error("constant '" + v.name + "' has the wrong size");
  return v.as<float>();
}

std::vector<float> floatsOf(const Value& v) {
  const float* p = floatData(v);
  return std::vector<float>(p, p + v.elements());
}

std::optional<ConstantFactor> constantFactor(const Graph& g, const Node& n) {
  if ((n.op != Op::Mul && n.op != Op::Div) || n.inputs.size() != 2) return std::nullopt;
  for (size_t a = 0; a < 2; ++a) {
    if (n.op == Op::Div && a != 0) break;
    const int c = n.inputs[1 - a];
    if (c < 0 || n.inputs[a] < 0) continue;
    const Value& k = g.values[static_cast<size_t>(c)];
    const auto& x = g.values[static_cast<size_t>(n.inputs[a])].shape;
    if (!k.is_constant || k.type != ElemType::Float32) continue;
    const bool scalar = k.elements() == 1;
    const bool perChannel =
        x.size() == 4 && k.elements() == x[1] &&
        (k.shape == std::vector<int64_t>{x[1], 1, 1} || k.shape == std::vector<int64_t>{1, x[1], 1, 1});
    if (!scalar && !perChannel) continue;
    ConstantFactor f{{}, a};
    for (float v : floatsOf(k)) f.factors.push_back(n.op == Op::Div ? 1.0 / double{v} : double{v});
    if (std::all_of(f.factors.begin(), f.factors.end(), [](double v) { return std::isfinite(v) && v > 0; })) return f;
  }
  return std::nullopt;
}

namespace {

class Classifier {
 public:
  explicit Classifier(const Graph& g) : g_(g) {}

  Kind classify(const Node& n) const {
    if (n.outputs.size() != 1 || !isFloat(n.outputs[0])) return Kind::Float;
    const Kind form = opDef(n).int8_form;
    if ((form == Kind::Mul || form == Kind::Scale) && scale(n)) return Kind::Scale;
    if (holds(form, n)) return form;
    return scalarArithmetic(n) ? Kind::Lut : Kind::Float;
  }

  /// An activation plus, minus, times, over, or the max or min of a one-element constant (either
  /// side): an element-wise function of the activation, so a table on int8 (hard-swish's `x + 3`,
  /// an affine after an activation, tf2onnx's `tf.maximum(x, c)`), where the Add, Mul and Extremum
  /// forms need two activations.
  bool scalarArithmetic(const Node& n) const {
    const bool arithmetic =
        n.op == Op::Add || n.op == Op::Sub || n.op == Op::Mul || n.op == Op::Div || n.op == Op::Max || n.op == Op::Min;
    if (!arithmetic || n.inputs.size() != 2) return false;
    for (size_t a = 0; a < 2; ++a) {
      const int x = n.inputs[a], c = n.inputs[1 - a];
      if (isActivation(x) && isConstFloat(c) && val(c).elements() == 1 && shape(x) == shape(n.outputs[0])) return true;
    }
    return false;
  }

  /// Whether `n` meets the conditions of its operator's int8 form (docs/quantized-ops.md).
  bool holds(Kind form, const Node& n) const {
    const bool oneActivation = n.inputs.size() == 1 && isActivation(n.inputs[0]);
    switch (form) {
      case Kind::Conv: return conv(n);
      case Kind::Gemm: return gemm(n);
      case Kind::MatMul: return matmul(n);
      case Kind::Add: return add(n);
      case Kind::MaxPool: return pool(n, true);
      case Kind::AveragePool: return pool(n, false);
      case Kind::GlobalAveragePool: return oneActivation && shape(n.inputs[0]).size() >= 3;
      case Kind::Relu:
      case Kind::Lut: return oneActivation;
      case Kind::Clip: return clip(n);
      case Kind::Move: return copiesInt8(n) && !n.inputs.empty() && isActivation(n.inputs[0]);
      case Kind::Concat: return concat(n);
      case Kind::Extremum: return extremum(n);
      case Kind::Mul: return mul(n);
      case Kind::Softmax: return softmax(n);
      case Kind::LayerNorm: return layerNorm(n);
      case Kind::Scale:  // a quotient by something else than a positive constant
      case Kind::Float: return false;
    }
    return false;
  }

  /// Only a nearest resize and an edge or reflect pad, of the data moves, copy int8 elements as they are.
  static bool copiesInt8(const Node& n) {
    if (n.op == Op::Resize || n.op == Op::Upsample) return n.getString("mode", "nearest") == "nearest";
    if (n.op == Op::Pad) return n.getString("mode", "constant") != "constant";
    return true;
  }

  /// An activation times (Mul, either side) or over (Div) a positive constant scalar.
  bool scale(const Node& n) const {
    const auto f = constantFactor(g_, n);
    return f && isActivation(n.inputs[f->input]) && shape(n.inputs[f->input]) == shape(n.outputs[0]);
  }

  /// The fused activation is one the requantize clamp can express.
  static bool fusableActivation(const Node& n, bool allowClip = true) {
    const std::string a = n.getString("activation", "");
    return a.empty() || a == "none" || a == "relu" || (allowClip && a == "clip");
  }

 private:
  const Value& val(int id) const { return g_.values[static_cast<size_t>(id)]; }
  const std::vector<int64_t>& shape(int id) const { return val(id).shape; }
  bool isFloat(int id) const { return id >= 0 && val(id).type == ElemType::Float32; }
  bool isActivation(int id) const { return isFloat(id) && !val(id).is_constant; }
  bool isConstFloat(int id) const { return isFloat(id) && val(id).is_constant; }
  bool optionalConst(const Node& n, size_t i, int64_t elements) const {
    if (n.inputs.size() <= i || n.inputs[i] < 0) return true;
    return isConstFloat(n.inputs[i]) && val(n.inputs[i]).elements() == elements;
  }

  bool conv(const Node& n) const {
    if (n.inputs.size() < 2 || n.inputs.size() > 3 || !isActivation(n.inputs[0]) || !isConstFloat(n.inputs[1]))
      return false;
    const auto& x = shape(n.inputs[0]);
    const auto& w = shape(n.inputs[1]);
    if ((x.size() != 3 && x.size() != 4) || w.size() != x.size() || !fusableActivation(n)) return false;
    const int64_t group = n.getInt("group", 1);
    if (group < 1 || x[1] != w[1] * group || w[0] % group != 0) return false;
    if (!optionalConst(n, 2, w[0])) return false;
    return windowOk(n, x, shape(n.outputs[0]), {w.begin() + 2, w.end()});
  }

  /// Two activations of one shape, or one of them [N, C, 1, 1] against the other's [N, C, H, W].
  bool mul(const Node& n) const {
    if (n.inputs.size() != 2 || !isActivation(n.inputs[0]) || !isActivation(n.inputs[1])) return false;
    const auto& a = shape(n.inputs[0]);
    const auto& b = shape(n.inputs[1]);
    const auto perChannel = [](const std::vector<int64_t>& big, const std::vector<int64_t>& small) {
      return big.size() == 4 && small == std::vector<int64_t>{big[0], big[1], 1, 1};
    };
    return a == b || perChannel(a, b) || perChannel(b, a);
  }

  bool gemm(const Node& n) const {
    if (n.inputs.size() < 2 || n.inputs.size() > 3 || !isActivation(n.inputs[0]) || !isConstFloat(n.inputs[1]))
      return false;
    if (n.getFloat("alpha", 1.0) != 1.0 || n.getInt("transA", 0) != 0 || !fusableActivation(n)) return false;
    const auto& a = shape(n.inputs[0]);
    const auto& b = shape(n.inputs[1]);
    if (a.size() != 2 || b.size() != 2) return false;
    const bool transB = n.getInt("transB", 0) != 0;
    const int64_t K = transB ? b[1] : b[0], N = transB ? b[0] : b[1];
    if (a[1] != K) return false;
    const bool hasC = n.inputs.size() > 2 && n.inputs[2] >= 0;
    if (hasC && (n.getFloat("beta", 1.0) != 1.0 || !isConstFloat(n.inputs[2]))) return false;
    if (!hasC || val(n.inputs[2]).elements() == 1) return true;
    // C must broadcast along M: [N] or [1, N].
    const auto& c = shape(n.inputs[2]);
    return !c.empty() && c.back() == N && val(n.inputs[2]).elements() == N;
  }

  bool matmul(const Node& n) const {
    if (n.inputs.size() == 2 && isActivation(n.inputs[0]) && isActivation(n.inputs[1])) return activationProduct(n);
    if (n.inputs.size() < 2 || n.inputs.size() > 3 || !isActivation(n.inputs[0]) || !isConstFloat(n.inputs[1]))
      return false;
    const auto& a = shape(n.inputs[0]);
    const auto& b = shape(n.inputs[1]);
    return !a.empty() && b.size() == 2 && a.back() == b[0] && fusableActivation(n) && optionalConst(n, 2, b[1]);
  }

  /// Two activations of one rank >= 2 with the same leading (batch) axes: A [..., M, K] times
  /// B [..., K, N], or B [..., N, K] transposed with transB (attention's Q K^T and P V).
  bool activationProduct(const Node& n) const {
    const auto& a = shape(n.inputs[0]);
    const auto& b = shape(n.inputs[1]);
    if (a.size() < 2 || a.size() != b.size() || !fusableActivation(n)) return false;
    if (!std::equal(a.begin(), a.end() - 2, b.begin())) return false;
    return a.back() == (n.getInt("transB", 0) != 0 ? b.back() : b[b.size() - 2]);
  }

  bool add(const Node& n) const {
    if (n.inputs.size() != 2 || !isFloat(n.inputs[0]) || !isFloat(n.inputs[1])) return false;
    if (val(n.inputs[0]).is_constant && val(n.inputs[1]).is_constant) return false;
    const auto& y = shape(n.outputs[0]);
    return shape(n.inputs[0]) == y && shape(n.inputs[1]) == y && fusableActivation(n);
  }

  bool pool(const Node& n, bool isMax) const {
    if (n.inputs.size() != 1 || !isActivation(n.inputs[0])) return false;
    const auto& x = shape(n.inputs[0]);
    const std::vector<int64_t> k = n.getInts("kernel_shape");
    if ((x.size() != 3 && x.size() != 4) || k.size() + 2 != x.size()) return false;
    if (isMax) return n.getInt("storage_order", 0) == 0 && windowOk(n, x, shape(n.outputs[0]), k);
    try {
      const Window2d w = windowOf(n, x, shape(n.outputs[0]), k);
      // The divisor must be the kernel size for every window.
      return w.windowsInsidePadded() && (!w.hasPadding() || n.getInt("count_include_pad", 0) == 1);
    } catch (const Error&) {
      return false;
    }
  }

  bool clip(const Node& n) const {
    if (n.inputs.empty() || !isActivation(n.inputs[0])) return false;
    for (size_t i = 1; i < n.inputs.size(); ++i)
      if (n.inputs[i] >= 0 && !(isConstFloat(n.inputs[i]) && val(n.inputs[i]).elements() == 1)) return false;
    return true;
  }

  /// Max or Min of two float activations of the output's shape (no broadcasting).
  bool extremum(const Node& n) const {
    if (n.inputs.size() != 2 || !isActivation(n.inputs[0]) || !isActivation(n.inputs[1])) return false;
    return shape(n.inputs[0]) == shape(n.outputs[0]) && shape(n.inputs[1]) == shape(n.outputs[0]);
  }

  /// A Softmax over the last axis (at any opset: before 13 it flattens from `axis`, the same there),
  /// or Systole's masked one (a constant mask of whole rows, attention-layout).
  bool softmax(const Node& n) const {
    if (n.inputs.empty() || n.inputs.size() > 2 || !isActivation(n.inputs[0])) return false;
    if (n.inputs.size() == 2 && !isConstFloat(n.inputs[1])) return false;
    const auto rank = static_cast<int64_t>(shape(n.inputs[0]).size());
    const int64_t axis = n.getInt("axis", g_.opset < 13 ? 1 : -1);
    return rank >= 1 && (axis == rank - 1 || axis == -1);
  }

  /// LayerNormalization over the last axis with constant scale (and bias) of its length.
  bool layerNorm(const Node& n) const {
    if (n.inputs.size() < 2 || !isActivation(n.inputs[0]) || !isConstFloat(n.inputs[1])) return false;
    const auto& x = shape(n.inputs[0]);
    const auto rank = static_cast<int64_t>(x.size());
    const int64_t axis = n.getInt("axis", -1);
    if (rank < 1 || (axis != rank - 1 && axis != -1)) return false;
    return val(n.inputs[1]).elements() == x.back() && optionalConst(n, 2, x.back());
  }

  bool concat(const Node& n) const {
    if (n.inputs.empty()) return false;
    bool anyActivation = false;
    for (int v : n.inputs) {
      if (!isFloat(v)) return false;
      anyActivation |= !val(v).is_constant;
    }
    return anyActivation;
  }

  static bool windowOk(const Node& n, const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                       const std::vector<int64_t>& k) {
    try {
      windowOf(n, x, y, k);
      return true;
    } catch (const Error&) {
      return false;
    }
  }

  const Graph& g_;
};

}  // namespace

bool activationWidthForm(Kind k) {
  switch (k) {
    case Kind::Conv:
    case Kind::Gemm:
    case Kind::MatMul:
    case Kind::Add:
    case Kind::AveragePool:
    case Kind::GlobalAveragePool:
    case Kind::MaxPool:
    case Kind::Relu:
    case Kind::Clip:
    case Kind::Move:
    case Kind::Concat: return true;
    default: return false;
  }
}

std::vector<Kind> classifyNodes(const Graph& g, int activationBits) {
  const Classifier classifier(g);
  std::vector<Kind> kind(g.nodes.size(), Kind::Float);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.dead) continue;
    kind[i] = classifier.classify(n);
    const bool product = kind[i] == Kind::MatMul && !isMatrixLayer(g, n);
    if (activationBits != 8 && (!activationWidthForm(kind[i]) || product)) kind[i] = Kind::Float;
  }
  return kind;
}

bool isMatrixLayer(const Graph& g, const Node& n) {
  if (n.op != Op::Conv && n.op != Op::Gemm && n.op != Op::MatMul) return false;
  return n.inputs.size() > 1 && g.values[static_cast<size_t>(n.inputs[1])].is_constant;
}

}  // namespace systole::compiler::quant
