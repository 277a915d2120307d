// Algorithm: a ReduceMean over the two spatial axes of a 4-D tensor (axes {2, 3} or {-2, -1}, as
// `x.mean([2, 3])` exports) is a GlobalAveragePool; a ReduceSum over them (axes an attribute, or a
// constant input from opset 13) is that pool times H * W (a Mul by a constant, which quantizes to
// a rescale). With keepdims = 0 a Flatten to [N, C] follows. The rewritten node keeps its name;
// what follows it writes the reduction's output.
#include "systole/compiler/float_ops.h"
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// The reduction reduces exactly H and W of a 4-D tensor (axes an attribute or a constant input).
bool reducesSpatialAxes(const Graph& g, const Node& n) {
  try {
    return ops::reduceAxes(n, g.opset, ops::graphOperands(g, n), 4) == std::vector<size_t>{2, 3};
  } catch (const ops::NeedsData&) {
    return false;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

void reduceMeanToPool(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node n = g.nodes[id];
    if (n.dead || (n.op != Op::ReduceMean && n.op != Op::ReduceSum) || n.inputs.empty() || n.outputs.size() != 1)
      continue;
    const auto shape = passes::val(g, n.inputs[0]).shape;
    if (shape.size() != 4 || shape[2] < 1 || shape[3] < 1 || !reducesSpatialAxes(g, n)) continue;
    const bool keep = n.getInt("keepdims", 1) != 0, sum = n.op == Op::ReduceSum;
    const int out = n.outputs[0];
    const std::vector<int64_t> pooledShape = {shape[0], shape[1], 1, 1};
    // The pool takes over the node; a Mul (sums) and a Flatten (keepdims = 0) follow, the last
    // of them writing the reduction's output.
    Node& pool = g.nodes[id];
    pool.op = Op::GlobalAveragePool;
    pool.attrs.clear();
    pool.inputs.resize(1);
    const bool more = sum || !keep;
    if (!more) continue;
    const int pooled = passes::addActivation(g, n.name + "_pooled", pooledShape);
    g.nodes[id].outputs = {pooled};
    passes::val(g, pooled).producer = static_cast<int>(id);
    int v = pooled;
    if (sum) {
      const int pixels = passes::addFloatConstant(g, n.name + ".pixels", {}, {static_cast<float>(shape[2] * shape[3])});
      v = passes::addNode(g, passes::nameLike(n.name, "Mul"), Op::Mul, {v, pixels}, pooledShape, {}, keep ? out : -1);
    }
    if (!keep)
      passes::addNode(g, passes::nameLike(n.name, "Flatten"), Op::Flatten, {v}, {}, {{"axis", int64_t{1}}}, out);
  }
}

}  // namespace systole::compiler
