// Algorithm: match hard-sigmoid and hard-swish as exporters spell them out (PaddlePaddle, Keras and
// hand-written MobileNet-v3s: relu6(x + 3) / 6 and x * relu6(x + 3) / 6), starting at each Clip
// with constant bounds [0, 6]:
//   a = Add(x, 3);   c = Clip(a, 0, 6);   s = Div(c, 6) or Mul(c, 1/6)            -> HardSigmoid(x)
//   m = Mul(x, c);   y = Div(m, 6) or Mul(m, 1/6)                                  -> HardSwish(x)
//   s as above;      y = Mul(x, s)                                                 -> HardSwish(x)
// (operands of Add and Mul in either order; every intermediate value read only by the next node,
// constants within 1e-4 relative). The chain becomes one node writing the chain's last value: an
// element-wise function of x, so one lookup table on int8 instead of a float Add that kept the
// whole network off the NPU.
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// The node reading `v` alone if it divides it by `divisor` (Div, or Mul by the reciprocal), else -1.
int divisionOf(const Graph& g, const passes::Uses& uses, int v, double divisor) {
  const int id = uses.single(v);
  if (id < 0) return -1;
  const Node& n = g.nodes[static_cast<size_t>(id)];
  if (n.op == Op::Div && n.inputs.size() == 2 && n.inputs[0] == v &&
      passes::near(passes::scalar(g, n.inputs[1]), divisor))
    return id;
  if (n.op == Op::Mul && passes::near(passes::scalar(g, passes::otherInput(n, v)), 1.0 / divisor)) return id;
  return -1;
}

void replace(Graph& g, const std::vector<int>& chain, int x, Op op, const std::string& like) {
  Node made;
  made.name = passes::nameLike(like, op == Op::HardSwish ? "HardSwish" : "HardSigmoid");
  made.op = op;
  if (op == Op::HardSigmoid) {
    made.attrs["alpha"] = 1.0 / 6.0;
    made.attrs["beta"] = 0.5;
  }
  made.inputs = {x};
  made.outputs = {g.nodes[static_cast<size_t>(chain.back())].outputs[0]};
  for (int n : chain) g.nodes[static_cast<size_t>(n)].dead = true;
  g.addNode(std::move(made));
}

bool matchAt(Graph& g, const passes::Uses& uses, int clipId) {
  const Node& clip = g.nodes[static_cast<size_t>(clipId)];
  const auto bounds = passes::constantClipBounds(g, clip);
  if (!bounds || bounds->first != 0.f || bounds->second != 6.f) return false;
  const int a = clip.inputs[0];
  const int addId = passes::producerOp(g, a, Op::Add);
  if (addId < 0 || uses.single(a) != clipId) return false;
  const Node& add = g.nodes[static_cast<size_t>(addId)];
  int x = -1;
  for (int k : {0, 1})
    if (passes::near(passes::scalar(g, add.inputs[static_cast<size_t>(1 - k)]), 3.0))
      x = add.inputs[static_cast<size_t>(k)];
  if (x < 0 || passes::isConst(g, x)) return false;
  const int c = clip.outputs[0];
  if (const int divId = divisionOf(g, uses, c, 6.0); divId >= 0) {  // relu6(x + 3) / 6
    const int s = g.nodes[static_cast<size_t>(divId)].outputs[0];
    const int mulId = uses.single(s);
    if (mulId >= 0 && g.nodes[static_cast<size_t>(mulId)].op == Op::Mul &&
        passes::otherInput(g.nodes[static_cast<size_t>(mulId)], s) == x)
      replace(g, {addId, clipId, divId, mulId}, x, Op::HardSwish, clip.name);
    else
      replace(g, {addId, clipId, divId}, x, Op::HardSigmoid, clip.name);
    return true;
  }
  const int mulId = uses.single(c);  // x * relu6(x + 3), then / 6
  if (mulId < 0 || g.nodes[static_cast<size_t>(mulId)].op != Op::Mul ||
      passes::otherInput(g.nodes[static_cast<size_t>(mulId)], c) != x)
    return false;
  const int divId = divisionOf(g, uses, g.nodes[static_cast<size_t>(mulId)].outputs[0], 6.0);
  if (divId < 0) return false;
  replace(g, {addId, clipId, mulId, divId}, x, Op::HardSwish, clip.name);
  return true;
}

}  // namespace

void recognizeHardActivations(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.op != Op::Clip || n.dead || n.inputs.empty()) continue;
    if (matchAt(g, uses, id)) uses.refresh();
  }
}

}  // namespace systole::compiler
