// Algorithm: ONNX's shape inference already ran at import (with data propagation), so most values
// arrive with static shapes. This pass walks the nodes in topological order and recomputes each
// node's output types and shapes from its inputs with the compiler's own shape functions (the same
// geometry the float kernels use, src/float_ops.h). Where ONNX left a dimension or the rank unknown
// (-1), the computed shape fills it in; where both are known and disagree, the model is
// inconsistent and the pass fails naming the node. Nodes whose shape depends on a value that is not
// constant yet (a Reshape fed by a Shape/Gather/Concat chain) are left for fold-constants, which
// calls computeOutputs again once the chain is folded.
#include <algorithm>

#include "float_ops.h"
#include "passes/pass_util.h"
#include "systole/compiler/passes.h"

namespace systole::compiler {

using ops::Operand;

namespace {

ElemType castTarget(int64_t to) {
  switch (to) {
    case 1: return ElemType::Float32;
    case 3: return ElemType::Int8;
    case 6: return ElemType::Int32;
    case 7: return ElemType::Int64;
    case 9: return ElemType::Bool;
    default: throw Error("Cast to ONNX type " + std::to_string(to) + " is not supported");
  }
}

std::vector<int64_t> matmulShape(std::vector<int64_t> a, std::vector<int64_t> b) {
  if (a.empty() || b.empty()) throw Error("MatMul operands must have at least one dimension");
  const bool aVec = a.size() == 1, bVec = b.size() == 1;
  if (aVec) a.insert(a.begin(), 1);
  if (bVec) b.push_back(1);
  const int64_t k = a.back(), k2 = b[b.size() - 2];
  if (k != k2) throw Error("MatMul inner dimensions differ: " + ops::shapeText(a) + " x " + ops::shapeText(b));
  std::vector<int64_t> batchA(a.begin(), a.end() - 2), batchB(b.begin(), b.end() - 2);
  std::vector<int64_t> out = ops::broadcast(batchA, batchB);
  if (!aVec) out.push_back(a[a.size() - 2]);
  if (!bVec) out.push_back(b.back());
  return out;
}

std::vector<OutputInfo> infer(const Node& n, int64_t opset, const std::vector<Operand>& in) {
  const std::string& op = n.op;
  auto need = [&](size_t count) {
    for (size_t k = 0; k < count; ++k)
      if (!ops::present(in, k)) throw Error("input " + std::to_string(k) + " is missing");
  };
  need(op == "Constant" ? 0 : 1);
  const Operand& x = in.empty() ? Operand{} : in[0];
  auto same = [&](std::vector<int64_t> shape) {
    std::vector<OutputInfo> out(n.outputs.size(), OutputInfo{x.type, shape});
    return out;
  };
  const size_t rank = x.shape.size();

  if (op == "Relu" || op == "Sigmoid" || op == "Tanh" || op == "Sqrt" || op == "Erf" || op == "Exp" || op == "Neg" ||
      op == "LeakyRelu" || op == "HardSigmoid" || op == "HardSwish" || op == "Clip" || op == "Identity" || op == "Softmax" ||
      op == "Gelu" || op == "PRelu")
    return same(x.shape);
  if (op == "Dropout") {
    auto out = same(x.shape);
    if (out.size() > 1) out[1].type = ElemType::Float32;  // the mask (bool in ONNX) must go unused
    return out;
  }
  if (op == "Cast") return {OutputInfo{castTarget(n.getInt("to", 1)), x.shape}};
  if (op == "BatchNormalization") {
    need(5);
    if (n.getInt("training_mode", 0) != 0) throw Error("BatchNormalization in training mode is not supported");
    if (n.getInt("spatial", 1) != 1) throw Error("BatchNormalization with spatial=0 is not supported");
    if (rank < 2) throw Error("BatchNormalization input needs a channel dimension");
    for (size_t k = 1; k < 5; ++k)
      if (in[k].elements() != x.shape[1])
        throw Error("BatchNormalization parameter " + std::to_string(k) + " has " + std::to_string(in[k].elements()) +
                    " values for " + std::to_string(x.shape[1]) + " channels");
    auto out = same(x.shape);
    for (size_t k = 1; k < out.size(); ++k) out[k].shape = {x.shape[1]};
    return out;
  }
  if (op == "LayerNormalization") {
    need(2);
    const size_t axis = ops::normAxis(n.getInt("axis", -1), rank);
    std::vector<int64_t> normShape(x.shape.begin() + static_cast<long>(axis), x.shape.end());
    if (ops::broadcast(in[1].shape, normShape) != normShape) throw Error("LayerNormalization scale does not match the normalized dimensions");
    if (ops::present(in, 2) && ops::broadcast(in[2].shape, normShape) != normShape)
      throw Error("LayerNormalization bias does not match the normalized dimensions");
    auto out = same(x.shape);
    for (size_t k = 1; k < out.size(); ++k) {
      out[k].shape = x.shape;
      for (size_t i = axis; i < rank; ++i) out[k].shape[i] = 1;
    }
    return out;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Max" || op == "Min") {
    if (op != "Max" && op != "Min") need(2);
    std::vector<int64_t> shape = x.shape;
    for (size_t k = 1; k < in.size(); ++k)
      if (in[k].present) shape = ops::broadcast(shape, in[k].shape);
    return same(shape);
  }
  if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual" || op == "And" ||
      op == "Or" || op == "Xor") {
    need(2);
    return {OutputInfo{ElemType::Bool, ops::broadcast(x.shape, in[1].shape)}};
  }
  if (op == "Not") return {OutputInfo{ElemType::Bool, x.shape}};
  if (op == "Where") {
    need(3);
    return {OutputInfo{in[1].type, ops::broadcast(ops::broadcast(x.shape, in[1].shape), in[2].shape)}};
  }
  if (op == "ConstantOfShape") {
    auto shape = ops::intsInput(in, 0);
    if (!shape) throw Error("ConstantOfShape needs its shape input");
    for (int64_t d : *shape)
      if (d < 0) throw Error("ConstantOfShape with a negative dimension");
    return {OutputInfo{castTarget(n.getInt("value_type", 1)), *shape}};
  }
  if (op == "Conv") {
    need(2);
    const Operand& w = in[1];
    if (rank < 3 || w.shape.size() != rank) throw Error("Conv input " + ops::shapeText(x.shape) + " and weight " + ops::shapeText(w.shape) + " do not match");
    const int64_t group = n.getInt("group", 1);
    if (group <= 0 || x.shape[1] != w.shape[1] * group || w.shape[0] % group != 0)
      throw Error("Conv input has " + std::to_string(x.shape[1]) + " channels; the weight " + ops::shapeText(w.shape) +
                  " with group " + std::to_string(group) + " expects " + std::to_string(w.shape[1] * group));
    std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
    if (n.has("kernel_shape") && n.getInts("kernel_shape") != kernel) throw Error("Conv kernel_shape does not match the weight");
    if (ops::present(in, 2) && in[2].elements() != w.shape[0])
      throw Error("Conv bias has " + std::to_string(in[2].elements()) + " values for " + std::to_string(w.shape[0]) + " output channels");
    const auto win = ops::windows(n, x.shape, kernel, false);
    std::vector<int64_t> shape = {x.shape[0], w.shape[0]};
    shape.insert(shape.end(), win.out.begin(), win.out.end());
    return same(shape);
  }
  if (op == "ConvTranspose") {
    need(2);
    const Operand& w = in[1];
    const int64_t group = n.getInt("group", 1);
    if (rank < 3 || w.shape.size() != rank || group <= 0 || x.shape[1] != w.shape[0] || w.shape[0] % group != 0)
      throw Error("ConvTranspose input " + ops::shapeText(x.shape) + " and weight " + ops::shapeText(w.shape) + " with group " +
                  std::to_string(group) + " do not match");
    std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());
    if (n.has("kernel_shape") && n.getInts("kernel_shape") != kernel) throw Error("ConvTranspose kernel_shape does not match the weight");
    if (ops::present(in, 2) && in[2].elements() != w.shape[1] * group)
      throw Error("ConvTranspose bias has " + std::to_string(in[2].elements()) + " values for " + std::to_string(w.shape[1] * group) +
                  " output channels");
    const auto win = ops::transposedWindows(n, x.shape, kernel);
    std::vector<int64_t> shape = {x.shape[0], w.shape[1] * group};
    shape.insert(shape.end(), win.out.begin(), win.out.end());
    return same(shape);
  }
  if (op == "MaxPool" || op == "AveragePool") {
    if (rank < 3) throw Error(op + " needs spatial dimensions");
    const auto win = ops::windows(n, x.shape, n.getInts("kernel_shape"), n.getInt("ceil_mode", 0) != 0);
    std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
    shape.insert(shape.end(), win.out.begin(), win.out.end());
    auto out = same(shape);
    if (out.size() > 1) out[1].type = ElemType::Int64;
    return out;
  }
  if (op == "GlobalAveragePool") {
    if (rank < 3) throw Error("GlobalAveragePool needs spatial dimensions");
    std::vector<int64_t> shape(rank, 1);
    shape[0] = x.shape[0];
    shape[1] = x.shape[1];
    return same(shape);
  }
  if (op == "Gemm") {
    need(2);
    if (rank != 2 || in[1].shape.size() != 2) throw Error("Gemm operands must be matrices");
    const bool ta = n.getInt("transA", 0) != 0, tb = n.getInt("transB", 0) != 0;
    const int64_t m = ta ? x.shape[1] : x.shape[0], k = ta ? x.shape[0] : x.shape[1];
    const int64_t k2 = tb ? in[1].shape[1] : in[1].shape[0], nn = tb ? in[1].shape[0] : in[1].shape[1];
    if (k != k2) throw Error("Gemm inner dimensions differ: " + std::to_string(k) + " vs " + std::to_string(k2));
    std::vector<int64_t> shape = {m, nn};
    if (ops::present(in, 2) && ops::broadcast(in[2].shape, shape) != shape)
      throw Error("Gemm C " + ops::shapeText(in[2].shape) + " does not broadcast to " + ops::shapeText(shape));
    return same(shape);
  }
  if (op == "MatMul") {
    need(2);
    std::vector<int64_t> shape = matmulShape(x.shape, in[1].shape);
    if (ops::present(in, 2) && ops::broadcast(shape, in[2].shape) != shape)
      throw Error("MatMul bias " + ops::shapeText(in[2].shape) + " does not broadcast to " + ops::shapeText(shape));
    return same(shape);
  }
  if (op == "Flatten") {
    const int64_t axis = n.getInt("axis", 1);
    const size_t a = axis == static_cast<int64_t>(rank) ? rank : ops::normAxis(axis, rank);
    return same({ops::product(x.shape, 0, a), ops::product(x.shape, a)});
  }
  if (op == "FlattenNhwc") {
    if (rank != 4) throw Error("FlattenNhwc needs a 4-D input");
    return same({x.shape[0], ops::product(x.shape, 1)});
  }
  if (op == "Reshape") {
    need(2);
    return same(ops::reshapeTarget(n, in));
  }
  if (op == "Transpose") {
    const auto perm = ops::transposePerm(n, rank);
    std::vector<int64_t> shape(rank);
    for (size_t i = 0; i < rank; ++i) shape[i] = x.shape[static_cast<size_t>(perm[i])];
    return same(shape);
  }
  if (op == "Concat") {
    const size_t axis = ops::normAxis(n.getInt("axis", 0), rank);
    std::vector<int64_t> shape = x.shape;
    for (size_t k = 1; k < in.size(); ++k) {
      const auto& s = in[k].shape;
      if (s.size() != rank) throw Error("Concat inputs have different ranks");
      for (size_t i = 0; i < rank; ++i)
        if (i != axis && s[i] != shape[i])
          throw Error("Concat inputs " + ops::shapeText(x.shape) + " and " + ops::shapeText(s) + " differ outside axis " + std::to_string(axis));
      shape[axis] = ops::checkedSum({shape[axis], s[axis]});
    }
    return same(shape);
  }
  if (op == "Split") {
    const size_t axis = ops::normAxis(n.getInt("axis", 0), rank);
    const auto sizes = ops::splitSizes(n, opset, in, n.outputs.size());
    std::vector<OutputInfo> out;
    for (int64_t s : sizes) {
      OutputInfo o{x.type, x.shape};
      o.shape[axis] = s;
      out.push_back(std::move(o));
    }
    return out;
  }
  if (op == "Slice") {
    const auto axes = ops::sliceParams(n, opset, in);
    std::vector<int64_t> shape;
    for (const auto& a : axes) shape.push_back(a.count);
    return same(shape);
  }
  if (op == "ReduceMean" || op == "ReduceSum") {
    const auto axes = ops::reduceAxes(n, opset, in, rank);
    const bool keep = n.getInt("keepdims", 1) != 0;
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i) {
      const bool reduced = std::find(axes.begin(), axes.end(), i) != axes.end();
      if (!reduced) shape.push_back(x.shape[i]);
      else if (keep) shape.push_back(1);
    }
    return same(shape);
  }
  if (op == "Pad") {
    const auto p = ops::padParams(n, opset, in);
    std::vector<int64_t> shape(rank);
    for (size_t i = 0; i < rank; ++i) {
      shape[i] = ops::checkedSum({x.shape[i], p.pads[i], p.pads[i + rank]});
      if (shape[i] < 0) throw Error("Pad removes more than the whole dimension " + std::to_string(i));
      if (p.mode == "reflect" && (p.pads[i] >= x.shape[i] || p.pads[i + rank] >= x.shape[i]))
        throw Error("reflect padding must be smaller than the dimension");
    }
    return same(shape);
  }
  if (op == "Resize" || op == "Upsample") {
    const auto shape = ops::resizeOutput(n, opset, in);
    ops::resizeParams(n, opset, in, shape);  // mode and coordinate transformation are supported
    return same(shape);
  }
  if (op == "DepthToSpace") {
    const int64_t b = ops::depthToSpace(n, x.shape).block;
    return same({x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b});
  }
  if (op == "Shape") {
    const int64_t r = static_cast<int64_t>(rank);
    int64_t start = n.getInt("start", 0), end = n.getInt("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, 0, r);
    return {OutputInfo{ElemType::Int64, {std::max<int64_t>(0, end - start)}}};
  }
  if (op == "Gather") {
    need(2);
    const size_t axis = ops::normAxis(n.getInt("axis", 0), rank);
    std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + static_cast<long>(axis));
    shape.insert(shape.end(), in[1].shape.begin(), in[1].shape.end());
    shape.insert(shape.end(), x.shape.begin() + static_cast<long>(axis) + 1, x.shape.end());
    return same(shape);
  }
  if (op == "Unsqueeze") {
    const auto axes = ops::axesParam(n, opset, in);
    const size_t outRank = rank + axes.size();
    std::vector<bool> inserted(outRank, false);
    for (int64_t a : axes) {
      const size_t i = ops::normAxis(a, outRank);
      if (inserted[i]) throw Error("Unsqueeze repeats an axis");
      inserted[i] = true;
    }
    std::vector<int64_t> shape;
    size_t src = 0;
    for (size_t i = 0; i < outRank; ++i) shape.push_back(inserted[i] ? 1 : x.shape[src++]);
    return same(shape);
  }
  if (op == "Squeeze") {
    const auto axes = ops::axesParam(n, opset, in);
    std::vector<bool> removed(rank, false);
    if (axes.empty())
      for (size_t i = 0; i < rank; ++i) removed[i] = x.shape[i] == 1;
    for (int64_t a : axes) {
      const size_t i = ops::normAxis(a, rank);
      if (x.shape[i] != 1) throw Error("Squeeze axis " + std::to_string(a) + " has size " + std::to_string(x.shape[i]));
      removed[i] = true;
    }
    std::vector<int64_t> shape;
    for (size_t i = 0; i < rank; ++i)
      if (!removed[i]) shape.push_back(x.shape[i]);
    return same(shape);
  }
  if (op == "Constant") {
    if (n.has("value_float")) return {OutputInfo{ElemType::Float32, {}}};
    if (n.has("value_int")) return {OutputInfo{ElemType::Int64, {}}};
    if (n.has("value_floats")) return {OutputInfo{ElemType::Float32, {static_cast<int64_t>(n.getFloats("value_floats").size())}}};
    if (n.has("value_ints")) return {OutputInfo{ElemType::Int64, {static_cast<int64_t>(n.getInts("value_ints").size())}}};
    throw Error("Constant without a value attribute");
  }
  throw Error("no shape function for operator " + op);
}

}  // namespace

bool hasStaticShape(const Value& v) {
  return std::all_of(v.shape.begin(), v.shape.end(), [](int64_t d) { return d >= 0; });
}

std::optional<std::vector<OutputInfo>> computeOutputs(const Graph& g, const Node& n) {
  for (int v : n.inputs)
    if (v >= 0 && !hasStaticShape(g.values[static_cast<size_t>(v)])) return std::nullopt;
  try {
    auto out = infer(n, g.opset, ops::graphOperands(g, n));
    if (out.size() != n.outputs.size()) throw Error("has " + std::to_string(n.outputs.size()) + " outputs, expected " + std::to_string(out.size()));
    return out;
  } catch (const ops::NeedsData&) {
    return std::nullopt;
  }
}

namespace passes {

bool updateShapes(Graph& g, int id) {
  const Node& n = g.nodes[static_cast<size_t>(id)];
  std::optional<std::vector<OutputInfo>> out;
  try {
    out = computeOutputs(g, n);
  } catch (const Error& e) {
    throw Error("node '" + n.name + "' (" + n.op + "): inconsistent shapes: " + e.message());
  }
  if (!out) return false;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    Value& v = g.values[static_cast<size_t>(n.outputs[k])];
    const auto& computed = (*out)[k].shape;
    checkTensorSize(computed, "node '" + n.name + "' (" + n.op + "): output '" + v.name + "'");
    bool agrees = v.shape == computed || v.shape == std::vector<int64_t>{-1};
    if (!agrees && v.shape.size() == computed.size()) {
      agrees = true;
      for (size_t i = 0; i < computed.size(); ++i) agrees = agrees && (v.shape[i] < 0 || v.shape[i] == computed[i]);
    }
    if (!agrees)
      throw Error("node '" + n.name + "' (" + n.op + "): inconsistent shapes: the model gives '" + v.name + "' the shape " +
                  ops::shapeText(v.shape) + ", its inputs make it " + ops::shapeText(computed));
    v.shape = computed;
    v.type = (*out)[k].type;
  }
  return true;
}

}  // namespace passes

void inferShapes(Graph& g) {
  for (int id : g.topoOrder()) passes::updateShapes(g, id);
}

void verifyShapes(const Graph& g) {
  for (int v : g.inputs)
    if (!hasStaticShape(g.values[static_cast<size_t>(v)]))
      throw Error("graph input '" + g.values[static_cast<size_t>(v)].name + "' has no static shape");
  for (int id : g.topoOrder()) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    for (int o : n.outputs)
      if (!hasStaticShape(g.values[static_cast<size_t>(o)]))
        throw Error("node '" + n.name + "' (" + n.op + "): the shape of '" + g.values[static_cast<size_t>(o)].name +
                    "' is not static (it depends on a value known only at run time)");
  }
}

}  // namespace systole::compiler
