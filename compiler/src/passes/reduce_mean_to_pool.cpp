// Algorithm: a ReduceMean over the two spatial axes of a 4-D tensor (axes {2, 3} or {-2, -1}, as
// `x.mean([2, 3])` exports) is a GlobalAveragePool; with keepdims = 0 it is followed by a Flatten
// to [N, C]. The rewritten node keeps its name; with keepdims = 0 the pool writes a new [N, C, 1, 1]
// value and a new Flatten writes the ReduceMean's output.
#include <algorithm>

#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

bool spatialAxes(std::vector<int64_t> axes) {
  for (auto& a : axes) a = a < 0 ? a + 4 : a;
  std::sort(axes.begin(), axes.end());
  return axes == std::vector<int64_t>{2, 3};
}

}  // namespace

void reduceMeanToPool(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    Node& n = g.nodes[id];
    if (n.dead || n.op != "ReduceMean" || n.inputs.size() != 1 || n.outputs.size() != 1) continue;
    const auto shape = passes::val(g, n.inputs[0]).shape;
    if (shape.size() != 4 || !spatialAxes(n.getInts("axes"))) continue;
    const bool keep = n.getInt("keepdims", 1) != 0;
    n.op = "GlobalAveragePool";
    n.attrs.clear();
    if (keep) continue;
    const int out = n.outputs[0];
    Value pooled;
    pooled.name = passes::uniqueName(g, n.name + "_pooled");
    pooled.shape = {shape[0], shape[1], 1, 1};
    const int pooledId = g.addValue(std::move(pooled));
    Node flatten;
    flatten.name = passes::nameLike(g.nodes[id].name, "Flatten");
    flatten.op = "Flatten";
    flatten.inputs = {pooledId};
    flatten.outputs = {out};
    flatten.attrs = {{"axis", int64_t{1}}};
    g.nodes[id].outputs = {pooledId};
    g.values[static_cast<size_t>(pooledId)].producer = static_cast<int>(id);
    g.addNode(std::move(flatten));
  }
}

}  // namespace systole::compiler
