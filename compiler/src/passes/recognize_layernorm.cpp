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

bool matchAt(Graph& g, const passes::Uses& uses, int rm1Id) {
  const Node& rm1 = g.nodes[static_cast<size_t>(rm1Id)];
  const int x = rm1.inputs[0];
  const auto& xShape = passes::val(g, x).shape;
  const auto k = trailingAxes(rm1, xShape.size());
  if (!k) return false;
  const int m = rm1.outputs[0];
  const int subId = uses.single(m);
  if (subId < 0) return false;
  const Node& sub = g.nodes[static_cast<size_t>(subId)];
  if (sub.op != Op::Sub || sub.inputs[0] != x || sub.inputs[1] != m) return false;
  const int d = sub.outputs[0];
  const auto& dUsers = uses.of(d);
  if (dUsers.size() != 2 || uses.isGraphOutput(d)) return false;
  int powId = -1, divId = -1;
  for (int u : dUsers) {
    const OpType& op = g.nodes[static_cast<size_t>(u)].op;
    if (op == Op::Pow) powId = u;
    else if (op == Op::Div) divId = u;
  }
  if (powId < 0 || divId < 0) return false;
  const Node& pw = g.nodes[static_cast<size_t>(powId)];
  if (pw.inputs[0] != d || !passes::near(passes::scalar(g, pw.inputs[1]), 2.0)) return false;
  const int rm2Id = uses.single(pw.outputs[0]);
  if (rm2Id < 0) return false;
  const Node& rm2 = g.nodes[static_cast<size_t>(rm2Id)];
  if (rm2.op != Op::ReduceMean || trailingAxes(rm2, xShape.size()) != k) return false;
  const int addId = uses.single(rm2.outputs[0]);
  if (addId < 0 || g.nodes[static_cast<size_t>(addId)].op != Op::Add) return false;
  const Node& add = g.nodes[static_cast<size_t>(addId)];
  const auto eps = passes::scalar(g, other(add, rm2.outputs[0]));
  if (!eps || *eps < 0) return false;
  const int sqrtId = uses.single(add.outputs[0]);
  if (sqrtId < 0 || g.nodes[static_cast<size_t>(sqrtId)].op != Op::Sqrt) return false;
  const Node& sq = g.nodes[static_cast<size_t>(sqrtId)];
  if (uses.single(sq.outputs[0]) != divId) return false;
  const Node& div = g.nodes[static_cast<size_t>(divId)];
  if (div.inputs[0] != d || div.inputs[1] != sq.outputs[0]) return false;

  const std::vector<int64_t> norm(xShape.end() - static_cast<long>(*k), xShape.end());
  std::vector<int> chain = {rm1Id, subId, powId, rm2Id, addId, sqrtId, divId};
  int last = divId;
  int gamma = -1, beta = -1;
  std::vector<int64_t> gammaShape, betaShape;
  if (int mulId = uses.single(div.outputs[0]); mulId >= 0 && g.nodes[static_cast<size_t>(mulId)].op == Op::Mul) {
    const int c = other(g.nodes[static_cast<size_t>(mulId)], div.outputs[0]);
    if (auto s = affineShape(g, c, norm)) {
      gamma = c;
      gammaShape = *s;
      chain.push_back(mulId);
      last = mulId;
      const int y = g.nodes[static_cast<size_t>(mulId)].outputs[0];
      if (int add2 = uses.single(y); add2 >= 0 && g.nodes[static_cast<size_t>(add2)].op == Op::Add) {
        const int b = other(g.nodes[static_cast<size_t>(add2)], y);
        if (auto bs = affineShape(g, b, norm)) {
          beta = b;
          betaShape = *bs;
          chain.push_back(add2);
          last = add2;
        }
      }
    }
  }
  const std::string name = passes::nameLike(rm1.name, "LayerNormalization");
  const int result = g.nodes[static_cast<size_t>(last)].outputs[0];
  auto asConstant = [&](int v, const std::vector<int64_t>& shape, const char* suffix) {
    if (passes::val(g, v).shape == shape) return v;
    return passes::addFloatConstant(g, passes::val(g, v).name + suffix, shape, passes::floats(g, v));
  };
  if (gamma < 0) {
    int64_t count = 1;
    for (int64_t dim : norm) count *= dim;
    gamma = passes::addFloatConstant(g, name + ".scale", norm, std::vector<float>(static_cast<size_t>(count), 1.f));
  } else {
    gamma = asConstant(gamma, gammaShape, ".ln");
  }
  if (beta >= 0) beta = asConstant(beta, betaShape, ".ln");

  Node ln;
  ln.name = name;
  ln.op = Op::LayerNormalization;
  ln.inputs = {x, gamma};
  if (beta >= 0) ln.inputs.push_back(beta);
  ln.attrs["axis"] = -static_cast<int64_t>(*k);
  ln.attrs["epsilon"] = static_cast<double>(*eps);
  for (int n : chain) g.nodes[static_cast<size_t>(n)].dead = true;
  ln.outputs = {result};
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
