// Algorithm: PRelu(x, s) = x for x >= 0, s * x below. With one constant slope it is
// LeakyRelu(alpha = s) (a Lut on the NPU). With one constant slope per channel of a 4-D tensor
// ([C, 1, 1] or [1, C, 1, 1]) of one sign it is
//   s > 0:  Relu(x) - Relu(-x) * s          s < 0:  Relu(x) + Relu(-x) * (-s)
// whose parts (Neg as a Lut, Relu, a product with positive per-channel constants, Add/Sub) all run
// on the NPU; the last node writes the PRelu's output. Other slopes are left alone (host).
#include "passes/pass_util.h"

namespace systole::compiler {

void decomposePRelu(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node n = g.nodes[id];
    if (n.dead || n.op != Op::PRelu || n.inputs.size() != 2 || !passes::isFloatConst(g, n.inputs[1])) continue;
    const std::vector<int64_t> x = passes::val(g, n.inputs[0]).shape;
    const std::vector<int64_t> slopeShape = passes::val(g, n.inputs[1]).shape;  // a copy: g.values grows below
    const std::vector<float> slope = passes::floats(g, n.inputs[1]);
    if (slope.size() == 1) {
      Node& leaky = g.nodes[id];
      leaky.op = Op::LeakyRelu;
      leaky.inputs.resize(1);
      leaky.attrs = {{"alpha", static_cast<double>(slope[0])}};
      continue;
    }
    const bool perChannel =
        x.size() == 4 && static_cast<int64_t>(slope.size()) == x[1] &&
        (slopeShape == std::vector<int64_t>{x[1], 1, 1} || slopeShape == std::vector<int64_t>{1, x[1], 1, 1});
    const bool positive = std::all_of(slope.begin(), slope.end(), [](float s) { return s > 0; });
    const bool negative = std::all_of(slope.begin(), slope.end(), [](float s) { return s < 0; });
    if (!perChannel || !(positive || negative)) continue;
    std::vector<float> magnitude;
    for (float s : slope) magnitude.push_back(std::abs(s));
    g.nodes[id].dead = true;
    const std::string& base = n.name;
    const int pos = passes::addNode(g, passes::nameLike(base, "Relu"), Op::Relu, {n.inputs[0]}, x);
    const int neg = passes::addNode(g, passes::nameLike(base, "Neg"), Op::Neg, {n.inputs[0]}, x);
    const int negPart = passes::addNode(g, passes::nameLike(base, "Relu_neg"), Op::Relu, {neg}, x);
    const int scale = passes::addFloatConstant(g, base + ".slope_magnitude", slopeShape, magnitude);
    const int scaled = passes::addNode(g, passes::nameLike(base, "Mul"), Op::Mul, {negPart, scale}, x);
    passes::addNode(g, passes::nameLike(base, positive ? "Sub" : "Add"), positive ? Op::Sub : Op::Add, {pos, scaled}, x,
                    {}, n.outputs[0]);
  }
}

}  // namespace systole::compiler
