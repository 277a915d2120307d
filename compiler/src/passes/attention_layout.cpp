// Algorithm: the layout moves around attention, made into what the NPU does without a transpose:
//   (a) a Transpose that moves only axes of size 1 keeps every byte where it is: a Reshape
//       (PyTorch's batch_first MultiheadAttention: [1, S, D] -> [S, 1, D]);
//   (b) MatMul(A, Transpose(X, p)) whose p ends by swapping the last two axes of p' (p with its
//       last two entries exchanged), where p' keeps X's last axis last, is
//       MatMul(A, Transpose(X, p'), transB = 1): B's rows are read as the columns of the product
//       (the array's transposed weight preload), and the Transpose left is a row permutation
//       (the heads split, (1, 0, 2)), or nothing when p' is the identity, or (a) again.
//   (c) a MatMul with constant weights whose output only channel Slices read (the packed Q, K, V
//       projection) becomes one MatMul per Slice with its columns of the weights (and bias): the
//       same MACs, and each of Q, K and V gets its own calibrated range instead of their union.
//   (d) Softmax(Add(x, M)) over the last axis, M a constant of 0s and large negatives (-inf: a
//       causal or padding mask) whose rows repeat over x's rows, is Systole's masked Softmax(x,
//       keep): keep is 1 where M is 0, 0 where it masks; masked elements are 0 and take no part
//       in the row's max.
//   (e) PaddleOCR's (and timm's) packed heads: Reshape(P [1, S, 3 H d] -> [1, S, 3, H, d]),
//       Transpose (2, 0, 3, 1, 4), and Slice [i] + Squeeze of its first axis for Q, K and V is,
//       per i, Transpose(Reshape(Slice(P, channels [i H d, (i + 1) H d)) -> [S, H, d]), (1, 0, 2)):
//       a channel Slice ((c) then splits the projection) and the heads split of (b). The result
//       is [H, S, d], without the leading 1 of [1, H, S, d], and so is every rank-4 value computed
//       from it by a product with a scalar, a MatMul, a Softmax over the last axis or a Transpose
//       keeping the first axis (whose axis and perm lose it too): the batched attention of ranks 3
//       the NPU runs. A reader of another kind gets a Reshape back to rank 4.
// A MatMul with transB is Systole's (ONNX's MatMul has no attributes): A [..., M, K] times
// B [..., N, K] transposed.
#include <set>

#include "passes/pass_util.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

using passes::val;

/// Whether `perm` keeps the order of the axes longer than 1 (so no byte moves).
bool keepsBytes(const std::vector<int64_t>& perm, const std::vector<int64_t>& shape) {
  int64_t last = -1;
  for (int64_t a : perm) {
    if (a < 0 || a >= static_cast<int64_t>(shape.size())) return false;
    if (shape[static_cast<size_t>(a)] == 1) continue;
    if (a < last) return false;
    last = a;
  }
  return true;
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

/// (a): returns true if it rewrote node `id`.
bool transposeToReshape(Graph& g, int id) {
  Node& n = g.nodes[static_cast<size_t>(id)];
  const auto& shape = val(g, n.inputs[0]).shape;
  const std::vector<int64_t> perm = n.getInts("perm");
  if (perm.size() != shape.size() || isIdentity(perm) || !keepsBytes(perm, shape)) return false;
  const std::vector<int64_t> target = val(g, n.outputs[0]).shape;
  if (target.size() != shape.size()) return false;
  const int shapeConst = passes::addInt64Constant(g, n.name + ".shape", target);
  Node& t = g.nodes[static_cast<size_t>(id)];  // addInt64Constant may grow the value table only
  t.op = Op::Reshape;
  t.attrs.clear();
  t.inputs = {t.inputs[0], shapeConst};
  return true;
}

/// (b): returns true if it rewrote MatMul `id`.
bool foldTransposedOperand(Graph& g, int id, const passes::Uses& uses) {
  const Node& mm = g.nodes[static_cast<size_t>(id)];
  if (mm.inputs.size() != 2 || mm.getInt("transB", 0) != 0) return false;
  const int b = mm.inputs[1];
  const int tp = passes::producerOp(g, b, Op::Transpose);
  if (tp < 0 || uses.single(b) != id) return false;
  const Node& t = g.nodes[static_cast<size_t>(tp)];
  const auto& x = val(g, t.inputs[0]).shape;
  std::vector<int64_t> perm = t.getInts("perm");
  if (perm.size() < 2 || perm.size() != x.size() || val(g, mm.inputs[0]).shape.size() != x.size()) return false;
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  if (perm.back() != static_cast<int64_t>(perm.size()) - 1) return false;  // p' would not keep X's rows whole
  const int src = t.inputs[0];
  int rows = src;  // B's rows: X permuted by p'
  if (!isIdentity(perm)) {
    std::vector<int64_t> shape(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) shape[i] = x[static_cast<size_t>(perm[i])];
    rows = passes::addNode(g, passes::nameLike(t.name, "Transpose"), Op::Transpose, {src}, shape, {{"perm", perm}});
  }
  Node& m = g.nodes[static_cast<size_t>(id)];
  m.inputs[1] = rows;
  m.attrs["transB"] = int64_t{1};
  g.nodes[static_cast<size_t>(tp)].dead = true;
  return true;
}

/// The columns [first, first + count) a Slice with step 1 keeps of its input's last axis, every
/// other axis whole, else nullopt.
std::optional<std::pair<int64_t, int64_t>> lastAxisColumns(const Graph& g, const Node& slice) {
  const auto& x = val(g, slice.inputs[0]).shape;
  std::vector<ops::SliceAxis> axes;
  try {
    axes = ops::sliceParams(slice, g.opset, ops::graphOperands(g, slice));
  } catch (const Error&) {
    return std::nullopt;  // bounds only known at run time
  }
  for (size_t d = 0; d + 1 < x.size(); ++d)
    if (axes[d].start != 0 || axes[d].step != 1 || axes[d].count != x[d]) return std::nullopt;
  if (axes.back().step != 1) return std::nullopt;
  return std::pair{axes.back().start, axes.back().count};
}

/// (c): returns true if it split MatMul `id`.
bool splitSlicedProjection(Graph& g, int id, const passes::Uses& uses) {
  const Node& mm = g.nodes[static_cast<size_t>(id)];
  if (mm.inputs.size() < 2 || !passes::isFloatConst(g, mm.inputs[1]) || mm.has("activation")) return false;
  const auto& w = val(g, mm.inputs[1]).shape;
  const bool bias = mm.inputs.size() > 2 && mm.inputs[2] >= 0;
  if (w.size() != 2 || (bias && (!passes::isFloatConst(g, mm.inputs[2]) || val(g, mm.inputs[2]).elements() != w[1])))
    return false;
  const int y = mm.outputs[0];
  if (uses.isGraphOutput(y) || uses.of(y).size() < 2) return false;
  std::vector<std::pair<int, std::pair<int64_t, int64_t>>> slices;
  for (int u : uses.of(y)) {
    const Node& s = g.nodes[static_cast<size_t>(u)];
    if (s.op != Op::Slice || s.inputs[0] != y) return false;
    const auto cols = lastAxisColumns(g, s);
    if (!cols) return false;
    slices.push_back({u, *cols});
  }
  const std::vector<float> weights = passes::floats(g, mm.inputs[1]);
  const std::vector<float> b = bias ? passes::floats(g, mm.inputs[2]) : std::vector<float>{};
  const int x = mm.inputs[0];
  const std::string name = mm.name;
  for (const auto& [u, cols] : slices) {
    const auto [first, count] = cols;
    std::vector<float> part(static_cast<size_t>(w[0] * count));
    for (int64_t k = 0; k < w[0]; ++k)
      for (int64_t j = 0; j < count; ++j)
        part[static_cast<size_t>(k * count + j)] = weights[static_cast<size_t>(k * w[1] + first + j)];
    std::vector<int> inputs = {x, passes::addFloatConstant(g, name + ".columns", {w[0], count}, part)};
    if (bias)
      inputs.push_back(passes::addFloatConstant(g, name + ".bias", {count},
                                                std::vector<float>(b.begin() + first, b.begin() + first + count)));
    Node& slice = g.nodes[static_cast<size_t>(u)];
    const int out = slice.outputs[0];
    slice.dead = true;
    passes::addNode(g, passes::nameLike(name, "MatMul"), Op::MatMul, inputs, val(g, out).shape, {}, out);
  }
  g.nodes[static_cast<size_t>(id)].dead = true;
  return true;
}

/// (d): returns true if it folded the additive mask before Softmax `id`.
bool foldSoftmaxMask(Graph& g, int id, const passes::Uses& uses) {
  const Node& sm = g.nodes[static_cast<size_t>(id)];
  if (sm.inputs.size() != 1) return false;
  const auto& x = val(g, sm.inputs[0]).shape;
  const auto rank = static_cast<int64_t>(x.size());
  const int64_t axis = sm.getInt("axis", g.opset < 13 ? 1 : -1);
  const int add = passes::producerOp(g, sm.inputs[0], Op::Add);
  if (rank < 2 || (axis != -1 && axis != rank - 1) || add < 0 || uses.single(sm.inputs[0]) != id) return false;
  const Node& a = g.nodes[static_cast<size_t>(add)];
  const int m = passes::isFloatConst(g, a.inputs[1]) ? a.inputs[1] : a.inputs[0];
  const int scores = m == a.inputs[1] ? a.inputs[0] : a.inputs[1];
  if (!passes::isFloatConst(g, m) || passes::isConst(g, scores) || val(g, scores).shape != x) return false;
  // M's rows: [..., R0, L] with every axis before R0 of size 1 and R0 either x's rows or 1.
  const auto& ms = val(g, m).shape;
  if (ms.empty() || ms.size() > x.size() || ms.back() != x.back()) return false;
  const int64_t rows = ms.size() >= 2 ? ms[ms.size() - 2] : 1;
  if (rows != 1 && rows != x[x.size() - 2]) return false;
  for (size_t d = 0; d + 2 < ms.size(); ++d)
    if (ms[d] != 1) return false;
  std::vector<float> keep;
  for (float v : passes::floats(g, m)) {
    if (v != 0.0f && v > -1e4f) return false;  // not a mask: a real bias of the scores
    keep.push_back(v == 0.0f ? 1.0f : 0.0f);
  }
  const int keepConst = passes::addFloatConstant(g, sm.name + ".keep", {rows, x.back()}, keep);
  Node& s = g.nodes[static_cast<size_t>(id)];
  s.inputs = {scores, keepConst};
  g.nodes[static_cast<size_t>(add)].dead = true;
  return true;
}

/// (e)'s Slice [i] of the first axis followed by a Squeeze of it: the Squeeze's node, or -1.
int squeezedSlice(const Graph& g, int sliceId, const passes::Uses& uses, int64_t& index) {
  const Node& s = g.nodes[static_cast<size_t>(sliceId)];
  if (s.op != Op::Slice) return -1;
  std::vector<ops::SliceAxis> axes;
  try {
    axes = ops::sliceParams(s, g.opset, ops::graphOperands(g, s));
  } catch (const Error&) {
    return -1;
  }
  const auto& x = val(g, s.inputs[0]).shape;
  for (size_t d = 1; d < x.size(); ++d)
    if (axes[d].start != 0 || axes[d].step != 1 || axes[d].count != x[d]) return -1;
  if (axes[0].count != 1) return -1;
  index = axes[0].start;
  const int sq = uses.single(s.outputs[0]);
  if (sq < 0) return -1;
  const Node& q = g.nodes[static_cast<size_t>(sq)];
  const bool squeezesFirst = q.op == Op::Squeeze && (q.inputs.size() > 1 ? passes::isConst(g, q.inputs[1]) : true);
  if (!squeezesFirst || val(g, q.outputs[0]).shape.size() + 1 != x.size()) return -1;
  return sq;
}

/// Rank-4 values with a leading 1 computed from the `reduced` ones lose it (e); a reader of another
/// kind gets a Reshape back to rank 4.
void dropLeadingOne(Graph& g, std::set<int> reduced) {
  for (int id : g.topoOrder()) {
    Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.dead || n.outputs.size() != 1) continue;
    const auto readsReduced = [&] {
      return std::any_of(n.inputs.begin(), n.inputs.end(), [&](int v) { return reduced.count(v) > 0; });
    };
    if (!readsReduced()) continue;
    const std::vector<int64_t> y = val(g, n.outputs[0]).shape;
    bool drop = y.size() == 4 && y[0] == 1;
    const auto scalarOther = [&] {
      return std::all_of(n.inputs.begin(), n.inputs.end(), [&](int v) {
        return reduced.count(v) > 0 || (passes::isConst(g, v) && val(g, v).elements() == 1);
      });
    };
    if (n.op == Op::Mul || n.op == Op::Div || n.op == Op::Add || n.op == Op::Sub) {
      drop = drop && scalarOther();
    } else if (n.op == Op::MatMul) {
      drop = drop && n.inputs.size() == 2 && reduced.count(n.inputs[0]) && reduced.count(n.inputs[1]);
    } else if (n.op == Op::Softmax) {
      const int64_t axis = n.getInt("axis", -1);
      drop = drop && (axis == -1 || axis == 3);
      if (drop) n.attrs["axis"] = int64_t{-1};
    } else if (n.op == Op::Transpose) {
      std::vector<int64_t> perm = n.getInts("perm");
      drop = drop && perm.size() == 4 && perm[0] == 0;
      if (drop) {
        perm.erase(perm.begin());
        for (int64_t& a : perm) --a;
        n.attrs["perm"] = perm;
      }
    } else {
      if (n.op == Op::Reshape && reduced.count(n.inputs[0]) && !reduced.count(n.inputs[1])) {
        // Its output keeps its shape, spelled out: a 0 in the target (copy the input's axis, as
        // paddle2onnx writes it) would now copy the wrong axis.
        n.inputs[1] = passes::addInt64Constant(g, val(g, n.outputs[0]).name + ".shape", y);
        continue;
      }
    }
    if (drop) {
      passes::val(g, n.outputs[0]).shape.erase(passes::val(g, n.outputs[0]).shape.begin());
      reduced.insert(n.outputs[0]);
      continue;
    }
    for (size_t k = 0; k < g.nodes[static_cast<size_t>(id)].inputs.size(); ++k) {  // another kind: rank 4 again
      const int v = g.nodes[static_cast<size_t>(id)].inputs[k];
      if (!reduced.count(v)) continue;
      std::vector<int64_t> four = val(g, v).shape;
      four.insert(four.begin(), 1);
      const std::string name = val(g, v).name;
      const int shape = passes::addInt64Constant(g, name + ".rank4", four);
      const int restored = passes::addNode(g, passes::nameLike(name, "Reshape"), Op::Reshape, {v, shape}, four);
      g.nodes[static_cast<size_t>(id)].inputs[k] = restored;
    }
  }
}

/// (e): returns true if it split the packed heads that Transpose `id` reads.
bool splitPackedHeads(Graph& g, int id, const passes::Uses& uses) {
  const Node t = g.nodes[static_cast<size_t>(id)];  // copies: adding nodes and values moves the tables
  if (t.getInts("perm") != std::vector<int64_t>{2, 0, 3, 1, 4} || uses.isGraphOutput(t.outputs[0])) return false;
  const int reshape = passes::producerOp(g, t.inputs[0], Op::Reshape);
  if (reshape < 0 || uses.single(t.inputs[0]) != id) return false;
  const int packed = g.nodes[static_cast<size_t>(reshape)].inputs[0];
  const std::vector<int64_t> r = val(g, t.inputs[0]).shape;  // [1, S, parts, H, d]
  const std::vector<int64_t> p = val(g, packed).shape;
  if (r[0] != 1 || p.empty() || p.back() != r[2] * r[3] * r[4] || val(g, packed).elements() != r[1] * p.back())
    return false;
  std::vector<std::pair<int, int64_t>> parts;  // (Squeeze, index)
  for (int u : uses.of(t.outputs[0])) {
    int64_t index = 0;
    const int sq = squeezedSlice(g, u, uses, index);
    if (sq < 0) return false;
    parts.push_back({sq, index});
  }
  const int64_t S = r[1], H = r[3], d = r[4], width = H * d;
  const int heads = passes::addInt64Constant(g, t.name + ".heads", {S, H, d});
  std::set<int> reduced;
  for (const auto& [sq, index] : parts) {
    const std::string name = g.nodes[static_cast<size_t>(sq)].name;
    std::vector<int64_t> sliced = p;
    sliced.back() = width;
    const int cols = passes::addSlice(g, passes::nameLike(name, "Slice"), packed, index * width, (index + 1) * width,
                                      static_cast<int64_t>(p.size()) - 1, sliced);
    const int rows = passes::addNode(g, passes::nameLike(name, "Reshape"), Op::Reshape, {cols, heads}, {S, H, d});
    const int out = g.nodes[static_cast<size_t>(sq)].outputs[0];
    g.nodes[static_cast<size_t>(sq)].dead = true;
    passes::val(g, out).shape = {H, S, d};
    passes::addNode(g, passes::nameLike(name, "Transpose"), Op::Transpose, {rows}, {H, S, d},
                    {{"perm", std::vector<int64_t>{1, 0, 2}}}, out);
    reduced.insert(out);
  }
  for (int u : uses.of(t.outputs[0])) g.nodes[static_cast<size_t>(u)].dead = true;
  g.nodes[static_cast<size_t>(id)].dead = true;
  g.nodes[static_cast<size_t>(reshape)].dead = true;
  dropLeadingOne(g, reduced);
  return true;
}

}  // namespace

void attentionLayout(Graph& g) {
  bool changed = true;
  while (changed) {
    changed = false;
    const passes::Uses uses(g);
    for (int id : g.topoOrder()) {
      const Node& n = g.nodes[static_cast<size_t>(id)];
      if (n.dead) continue;
      if (n.op == Op::MatMul && (foldTransposedOperand(g, id, uses) || splitSlicedProjection(g, id, uses))) {
        changed = true;
        break;  // the use lists are stale
      }
      if (n.op == Op::Transpose && n.inputs.size() == 1 && transposeToReshape(g, id)) changed = true;
      if (n.op == Op::Transpose && n.inputs.size() == 1 && splitPackedHeads(g, id, uses)) {
        changed = true;
        break;  // the use lists are stale
      }
      if (n.op == Op::Softmax && foldSoftmaxMask(g, id, uses)) {
        changed = true;
        break;  // the use lists are stale
      }
    }
  }
}

}  // namespace systole::compiler
