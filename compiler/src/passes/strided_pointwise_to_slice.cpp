// Algorithm: a 1 x 1 Conv with stride s > 1 and no padding reads only every s-th pixel of every
// s-th row, so it is a spatial Slice (steps s) followed by the same Conv at stride 1. Both compute
// exactly the same values (the Slice moves pixels; the Conv's sums are unchanged), and the Slice
// is a pixel gather done once, where a strided convolution on the array gathers (or computes in
// s-times-wider virtual rows) the same pixels again for every output-channel block and input tile.
#include "passes/pass_util.h"

namespace systole::compiler {

void stridedPointwiseToSlice(Graph& g) {
  if (g.opset < 10) return;  // Slice takes steps from opset 10
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node n = g.nodes[id];
    if (n.dead || n.op != Op::Conv || n.inputs.size() < 2) continue;
    const std::vector<int64_t> x = passes::val(g, n.inputs[0]).shape,
                               w = passes::val(g, n.inputs[1]).shape;  // copies: values get added
    if (x.size() != 4 || w.size() != 4 || w[2] != 1 || w[3] != 1) continue;
    if (std::any_of(x.begin(), x.end(), [](int64_t d) { return d < 1; })) continue;
    const auto strides = n.getInts("strides", {1, 1});
    const auto pads = n.getInts("pads", {0, 0, 0, 0});
    const std::string autoPad = n.has("auto_pad") ? std::get<std::string>(n.attrs.at("auto_pad")) : "NOTSET";
    if (strides.size() != 2 || (strides[0] == 1 && strides[1] == 1) || strides[0] < 1 || strides[1] < 1) continue;
    if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }) ||
        (autoPad != "NOTSET" && autoPad != "VALID"))
      continue;
    const std::string base = n.name + ".subsample";
    const int sliced = passes::addNode(
        g, passes::nameLike(n.name, "Slice"), Op::Slice,
        {n.inputs[0], passes::addInt64Constant(g, base + "_start", {0, 0}),
         passes::addInt64Constant(g, base + "_end", {x[2], x[3]}), passes::addInt64Constant(g, base + "_axis", {2, 3}),
         passes::addInt64Constant(g, base + "_step", strides)},
        {x[0], x[1], (x[2] + strides[0] - 1) / strides[0], (x[3] + strides[1] - 1) / strides[1]});
    Node& conv = g.nodes[id];
    conv.inputs[0] = sliced;
    conv.attrs["strides"] = std::vector<int64_t>{1, 1};
  }
}

}  // namespace systole::compiler
