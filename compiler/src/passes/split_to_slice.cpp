// Algorithm: a Split with constant sizes becomes one Slice per output ([offset, offset + size) of
// the split axis, offsets the running sum of the sizes), each writing its output under its own
// name. A Slice has one output, so every part reaches the NPU's layout moves on its own (a channel
// range, or a pixel gather of rows or columns); an output nothing reads is left for dce.
#include "systole/compiler/float_ops.h"
#include "passes/pass_util.h"

namespace systole::compiler {

void splitToSlice(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node n = g.nodes[id];
    if (n.dead || n.op != Op::Split || n.inputs.empty() || n.outputs.empty()) continue;
    const auto& x = passes::val(g, n.inputs[0]).shape;
    if (x.empty() || std::any_of(x.begin(), x.end(), [](int64_t d) { return d < 0; })) continue;
    std::vector<int64_t> sizes;
    int64_t axis = 0;
    try {
      axis = static_cast<int64_t>(ops::normAxis(n.getInt("axis", 0), x.size()));
      sizes = ops::splitSizes(n, g.opset, ops::graphOperands(g, n), n.outputs.size());
    } catch (const ops::NeedsData&) {
      continue;
    } catch (const Error&) {
      continue;
    }
    g.nodes[id].dead = true;
    int64_t offset = 0;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const int64_t begin = offset, end = offset + sizes[k];
      offset = end;
      if (n.outputs[k] < 0) continue;
      passes::addSlice(g, passes::nameLike(n.name, "Slice_" + std::to_string(k)), n.inputs[0], begin, end, axis,
                       passes::val(g, n.outputs[k]).shape, n.outputs[k]);
    }
  }
}

}  // namespace systole::compiler
