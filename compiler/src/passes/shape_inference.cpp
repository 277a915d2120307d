// Algorithm: ONNX's shape inference already ran at import (with data propagation), so most values
// arrive with static shapes. This pass walks the nodes in topological order and recomputes each
// node's output types and shapes from its inputs with each operator's shape function (its definition
// in src/ops/, on the same geometry the float kernels use, src/float_ops.h). Where ONNX left a dimension or the rank
// unknown
// (-1), the computed shape fills it in; where both are known and disagree, the model is
// inconsistent and the pass fails naming the node. Nodes whose shape depends on a value that is not
// constant yet (a Reshape fed by a Shape/Gather/Concat chain) are left for fold-constants, which
// calls computeOutputs again once the chain is folded.
#include <algorithm>

#include "ops/op_def.h"
#include "passes/pass_util.h"
#include "systole/compiler/passes.h"

namespace systole::compiler {

using ops::Operand;

namespace {

/// The operator's shape function (compiler/src/ops/) on the node's inputs.
std::vector<OutputInfo> infer(const Node& n, int64_t opset, const std::vector<Operand>& in) {
  const OpDef& def = opDef(n);
  if (!def.shape) throw Error("no shape function for operator " + n.op);
  const ShapeCtx c{n, opset, in};
  c.need(def.min_inputs);
  return def.shape(c);
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
    if (out.size() != n.outputs.size())
      throw Error("has " + std::to_string(n.outputs.size()) + " outputs, expected " + std::to_string(out.size()));
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
    // A graph output's declared shape is the exporter's claim, not something ONNX inferred: where
    // it is wrong (ddddocr's OCR declares [1, -1] and returns [20, 1, 8210]), the computed shape
    // wins, as in ONNX Runtime.
    const bool graphOutput = std::find(g.outputs.begin(), g.outputs.end(), n.outputs[k]) != g.outputs.end();
    if (!agrees && !graphOutput)
      throw Error("node '" + n.name + "' (" + n.op + "): inconsistent shapes: the model gives '" + v.name +
                  "' the shape " + ops::shapeText(v.shape) + ", its inputs make it " + ops::shapeText(computed));
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
