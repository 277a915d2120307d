// Algorithm: an inference BatchNormalization that fold-batchnorm could not fold (its input comes
// from a Concat, a pool or a graph input, as in DenseNet's pre-activation blocks) on a 4-D tensor
// becomes the depthwise 1x1 convolution it is: per channel c, weight s[c] = gamma[c] /
// sqrt(var[c] + eps) and bias beta[c] - mean[c] * s[c], group = C. The node keeps its name and
// output; a following Relu then fuses into it, and the quantizer and the NPU take it as any Conv.
#include "passes/pass_util.h"

namespace systole::compiler {

void batchNormToConv(Graph& g) {
  for (size_t id = 0; id < g.nodes.size(); ++id) {
    Node& bn = g.nodes[id];
    if (bn.dead || bn.op != Op::BatchNormalization) continue;
    const auto p = passes::batchNormParams(g, bn);
    const auto& shape = passes::val(g, bn.inputs[0]).shape;
    if (!p || shape.size() != 4 || shape[1] != static_cast<int64_t>(p->s.size())) continue;
    const int64_t C = shape[1];
    std::vector<float> bias(static_cast<size_t>(C));
    for (size_t c = 0; c < bias.size(); ++c) bias[c] = p->beta[c] - p->mean[c] * p->s[c];
    const int w = passes::addFloatConstant(g, bn.name + ".weight", {C, 1, 1, 1}, p->s);
    const int b = passes::addFloatConstant(g, bn.name + ".bias", {C}, bias);
    Node& n = g.nodes[id];  // addFloatConstant may have grown g.values, not g.nodes
    n.op = Op::Conv;
    n.inputs = {n.inputs[0], w, b};
    n.attrs = {{"group", C}, {"kernel_shape", std::vector<int64_t>{1, 1}}};
  }
}

}  // namespace systole::compiler
