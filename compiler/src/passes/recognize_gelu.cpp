// Algorithm: match the exact GELU, x * 0.5 * (1 + erf(x / sqrt(2))), starting at each Erf:
//   t = Div(x, sqrt 2) or Mul(x, 1/sqrt 2);   e = Erf(t);   a = Add(e, 1)
// followed by one of the three groupings torch and hand-written models produce:
//   Mul(Mul(x, a), 0.5)      Mul(Mul(x, 0.5), a)      Mul(Mul(a, 0.5), x)
// (operands of Add and Mul in either order; every intermediate value read only by the next node,
// constants within 1e-4 relative). The chain becomes one Gelu(x) writing the chain's last value.
#include <numbers>

#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

bool matchAt(Graph& g, const passes::Uses& uses, int erfId) {
  const Node& erf = g.nodes[static_cast<size_t>(erfId)];
  const int t = erf.inputs[0];
  const int scaleId = passes::producerOp(g, t);
  if (scaleId < 0 || uses.single(t) != erfId) return false;
  const Node& scale = g.nodes[static_cast<size_t>(scaleId)];
  int x = -1;
  if (scale.op == Op::Div && passes::near(passes::scalar(g, scale.inputs[1]), std::numbers::sqrt2))
    x = scale.inputs[0];
  else if (scale.op == Op::Mul && passes::near(passes::scalar(g, scale.inputs[1]), 1.0 / std::numbers::sqrt2))
    x = scale.inputs[0];
  else if (scale.op == Op::Mul && passes::near(passes::scalar(g, scale.inputs[0]), 1.0 / std::numbers::sqrt2))
    x = scale.inputs[1];
  if (x < 0) return false;
  const int addId = uses.single(erf.outputs[0]);
  if (addId < 0 || g.nodes[static_cast<size_t>(addId)].op != Op::Add) return false;
  const Node& add = g.nodes[static_cast<size_t>(addId)];
  if (!passes::near(passes::scalar(g, passes::otherInput(add, erf.outputs[0])), 1.0)) return false;
  const int a = add.outputs[0];
  const int m1Id = uses.single(a);
  if (m1Id < 0 || g.nodes[static_cast<size_t>(m1Id)].op != Op::Mul) return false;
  const Node& m1 = g.nodes[static_cast<size_t>(m1Id)];
  const int o = passes::otherInput(m1, a);
  std::vector<int> chain = {scaleId, erfId, addId, m1Id};
  int last = m1Id;
  auto isHalf = [&](int v) { return passes::near(passes::scalar(g, v), 0.5); };
  if (o == x) {  // Mul(Mul(x, a), 0.5)
    const int m2Id = uses.single(m1.outputs[0]);
    if (m2Id < 0 || g.nodes[static_cast<size_t>(m2Id)].op != Op::Mul ||
        !isHalf(passes::otherInput(g.nodes[static_cast<size_t>(m2Id)], m1.outputs[0])))
      return false;
    chain.push_back(m2Id);
    last = m2Id;
  } else if (const int hId = passes::producerOp(g, o, Op::Mul);
             hId >= 0 && passes::otherInput(g.nodes[static_cast<size_t>(hId)], x) >= 0 &&
             isHalf(passes::otherInput(g.nodes[static_cast<size_t>(hId)], x)) && uses.single(o) == m1Id) {
    chain.push_back(hId);  // Mul(Mul(x, 0.5), a)
  } else if (isHalf(o)) {  // Mul(Mul(a, 0.5), x)
    const int m2Id = uses.single(m1.outputs[0]);
    if (m2Id < 0 || g.nodes[static_cast<size_t>(m2Id)].op != Op::Mul ||
        passes::otherInput(g.nodes[static_cast<size_t>(m2Id)], m1.outputs[0]) != x)
      return false;
    chain.push_back(m2Id);
    last = m2Id;
  } else {
    return false;
  }
  Node gelu;
  gelu.name = passes::nameLike(erf.name, "Gelu");
  gelu.op = Op::Gelu;
  gelu.inputs = {x};
  gelu.outputs = {g.nodes[static_cast<size_t>(last)].outputs[0]};
  for (int n : chain) g.nodes[static_cast<size_t>(n)].dead = true;
  g.addNode(std::move(gelu));
  return true;
}

}  // namespace

void recognizeGelu(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.op != Op::Erf || n.dead) continue;
    if (matchAt(g, uses, id)) uses.refresh();
  }
}

}  // namespace systole::compiler
