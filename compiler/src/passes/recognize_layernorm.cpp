// Algorithm: match the decomposition torch exports for nn.LayerNorm below opset 17, starting at
// each ReduceMean:
//   m = ReduceMean(x, axes)          d = Sub(x, m)          p = Pow(d, 2)
//   v = ReduceMean(p, axes)          a = Add(v, eps)        s = Sqrt(a)
//   n = Div(d, s)                  [ y = Mul(n, gamma) ]  [ z = Add(y, beta) ]
// where axes are the trailing dimensions, eps, gamma and beta are constants, and every
// intermediate value has exactly the readers the pattern names (d has two: Pow and Div). The chain
// becomes one LayerNormalization(x, gamma, beta){axis = -len(axes), epsilon = eps} writing the
// chain's last value (gamma defaults to ones when the Mul is absent).
#include <algorithm>

#include <optional>

#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

using passes::producerOp;

/// The operand of binary node `n` other than `v` (-1 if `v` is not an operand).
int other(const Node& n, int v) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return -1;
}

/// Normalized, sorted ReduceMean axes when they are the trailing `k` axes of rank `r` (keepdims).
std::optional<size_t> trailingAxes(const Node& rm, size_t rank) {
  if (rm.getInt("keepdims", 1) != 1 || rank == 0) return std::nullopt;
  std::vector<int64_t> axes = rm.getInts("axes");
  if (axes.empty()) return std::nullopt;
  for (auto& a : axes) {
    if (a < -static_cast<int64_t>(rank) || a >= static_cast<int64_t>(rank)) return std::nullopt;
    if (a < 0) a += static_cast<int64_t>(rank);
  }
  std::sort(axes.begin(), axes.end());
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != static_cast<int64_t>(rank - axes.size() + i)) return std::nullopt;
  return axes.size();
}

/// A float constant whose shape fits the normalized (trailing `k`) dimensions, reshaped to them.
std::optional<std::vector<int64_t>> affineShape(const Graph& g, int v, const std::vector<int64_t>& norm) {
  if (!passes::isFloatConst(g, v)) return std::nullopt;
  std::vector<int64_t> s = passes::val(g, v).shape;
  while (s.size() > norm.size()) {
    if (s.front() != 1) return std::nullopt;
    s.erase(s.begin());
  }
  // Every dimension is 1 or the normalized one (broadcasts within the normalized dims only).
  for (size_t i = 0; i < s.size(); ++i) {
    const int64_t n = norm[norm.size() - s.size() + i];
    if (s[i] != 1 && s[i] != n) return std::nullopt;
  }
  return s;
}

/// The normalization chain ReduceMean -> Sub -> Pow 2 -> ReduceMean -> Add eps -> Sqrt -> Div from
/// the first ReduceMean: x, the number of trailing axes normalized, epsilon, the chain's nodes in
/// order and its output (the Div's, until an affine part extends it).
struct NormChain {
  int x;
  size_t axes;
  double eps;
  std::vector<int> nodes;
  int out;
};

std::optional<NormChain> matchNormalization(const Graph& g, const passes::Uses& uses, int rm1Id) {
  const Node& rm1 = g.nodes[static_cast<size_t>(rm1Id)];
  const int x = rm1.inputs[0];
  const auto& xShape = passes::val(g, x).shape;
  const auto k = trailingAxes(rm1, xShape.size());
  if (!k) return std::nullopt;
  const int m = rm1.outputs[0];
  const int subId = uses.single(m);
  if (subId < 0) return std::nullopt;
  const Node& sub = g.nodes[static_cast<size_t>(subId)];
  if (sub.op != Op::Sub || sub.inputs[0] != x || sub.inputs[1] != m) return std::nullopt;
  const int d = sub.outputs[0];
  const auto& dUsers = uses.of(d);
  if (dUsers.size() != 2 || uses.isGraphOutput(d)) return std::nullopt;
  int powId = -1, divId = -1;
  for (int u : dUsers) {
    const OpType& op = g.nodes[static_cast<size_t>(u)].op;
    if (op == Op::Pow)
      powId = u;
    else if (op == Op::Div)
      divId = u;
  }
  if (powId < 0 || divId < 0) return std::nullopt;
  const Node& pw = g.nodes[static_cast<size_t>(powId)];
  if (pw.inputs[0] != d || !passes::near(passes::scalar(g, pw.inputs[1]), 2.0)) return std::nullopt;
  const int rm2Id = uses.single(pw.outputs[0]);
  if (rm2Id < 0) return std::nullopt;
  const Node& rm2 = g.nodes[static_cast<size_t>(rm2Id)];
  if (rm2.op != Op::ReduceMean || trailingAxes(rm2, xShape.size()) != k) return std::nullopt;
  const int addId = uses.single(rm2.outputs[0]);
  if (addId < 0 || g.nodes[static_cast<size_t>(addId)].op != Op::Add) return std::nullopt;
  const Node& add = g.nodes[static_cast<size_t>(addId)];
  const auto eps = passes::scalar(g, other(add, rm2.outputs[0]));
  if (!eps || *eps < 0) return std::nullopt;
  const int sqrtId = uses.single(add.outputs[0]);
  if (sqrtId < 0 || g.nodes[static_cast<size_t>(sqrtId)].op != Op::Sqrt) return std::nullopt;
  const Node& sq = g.nodes[static_cast<size_t>(sqrtId)];
  if (uses.single(sq.outputs[0]) != divId) return std::nullopt;
  const Node& div = g.nodes[static_cast<size_t>(divId)];
  if (div.inputs[0] != d || div.inputs[1] != sq.outputs[0]) return std::nullopt;
  return NormChain{
      x, *k, static_cast<double>(*eps), {rm1Id, subId, powId, rm2Id, addId, sqrtId, divId}, div.outputs[0]};
}

/// The optional Mul by gamma and, after it, Add of beta (constants shaped like the normalized
/// dimensions) that follow the chain, appended to it.
struct Affine {
  int gamma = -1, beta = -1;
  std::vector<int64_t> gammaShape, betaShape;
};

Affine matchAffine(const Graph& g, const passes::Uses& uses, NormChain& c, const std::vector<int64_t>& norm) {
  Affine a;
  const int mulId = uses.single(c.out);
  if (mulId < 0 || g.nodes[static_cast<size_t>(mulId)].op != Op::Mul) return a;
  const auto gammaShape = affineShape(g, other(g.nodes[static_cast<size_t>(mulId)], c.out), norm);
  if (!gammaShape) return a;
  a.gamma = other(g.nodes[static_cast<size_t>(mulId)], c.out);
  a.gammaShape = *gammaShape;
  c.nodes.push_back(mulId);
  c.out = g.nodes[static_cast<size_t>(mulId)].outputs[0];
  const int addId = uses.single(c.out);
  if (addId < 0 || g.nodes[static_cast<size_t>(addId)].op != Op::Add) return a;
  const int b = other(g.nodes[static_cast<size_t>(addId)], c.out);
  if (auto betaShape = affineShape(g, b, norm)) {
    a.beta = b;
    a.betaShape = *betaShape;
    c.nodes.push_back(addId);
    c.out = g.nodes[static_cast<size_t>(addId)].outputs[0];
  }
  return a;
}

bool matchAt(Graph& g, const passes::Uses& uses, int rm1Id) {
  std::optional<NormChain> c = matchNormalization(g, uses, rm1Id);
  if (!c) return false;
  const auto& xShape = passes::val(g, c->x).shape;
  const std::vector<int64_t> norm(xShape.end() - static_cast<long>(c->axes), xShape.end());
  Affine a = matchAffine(g, uses, *c, norm);
  const std::string name = passes::nameLike(g.nodes[static_cast<size_t>(rm1Id)].name, "LayerNormalization");
  auto asConstant = [&](int v, const std::vector<int64_t>& shape, const char* suffix) {
    if (passes::val(g, v).shape == shape) return v;
    return passes::addFloatConstant(g, passes::val(g, v).name + suffix, shape, passes::floats(g, v));
  };
  if (a.gamma < 0) {
    int64_t count = 1;
    for (int64_t dim : norm) count *= dim;
    a.gamma = passes::addFloatConstant(g, name + ".scale", norm, std::vector<float>(static_cast<size_t>(count), 1.f));
  } else {
    a.gamma = asConstant(a.gamma, a.gammaShape, ".ln");
  }
  if (a.beta >= 0) a.beta = asConstant(a.beta, a.betaShape, ".ln");

  Node ln;
  ln.name = name;
  ln.op = Op::LayerNormalization;
  ln.inputs = {c->x, a.gamma};
  if (a.beta >= 0) ln.inputs.push_back(a.beta);
  ln.attrs["axis"] = -static_cast<int64_t>(c->axes);
  ln.attrs["epsilon"] = c->eps;
  for (int n : c->nodes) g.nodes[static_cast<size_t>(n)].dead = true;
  ln.outputs = {c->out};
  g.addNode(std::move(ln));
  return true;
}

}  // namespace

void recognizeLayerNorm(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.op != Op::ReduceMean || n.dead || n.inputs.empty()) continue;
    if (passes::val(g, n.inputs[0]).type != ElemType::Float32) continue;
    if (matchAt(g, uses, id)) uses.refresh();
  }
}

}  // namespace systole::compiler
