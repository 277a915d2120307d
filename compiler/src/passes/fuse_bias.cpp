// Algorithm: an Add of a constant to the output of a Conv, Gemm or MatMul (read by nothing else)
// folds into that node when the constant is a bias: one value per output channel (Conv: shape
// [M,1,1], [1,M,1,1] or a scalar; Gemm and MatMul: [N], [1,N] or a scalar). Conv adds it to its
// bias input; Gemm adds it to C (C' = beta * C + bias, beta = 1); MatMul with a constant right
// operand gets it as a third input (the Systole "MatMul with bias" form, see
// docs/quantized-ops.md). The node then writes the Add's output. Through a DepthToSpace after a
// Conv (a lowered ConvTranspose), the bias goes to the Conv's channels that feed each output channel.
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// The per-channel values of constant `c` for `channels` channels along axis `axis` of an output
/// of rank `rank`, or nullopt if `c` is not shaped like such a bias.
std::optional<std::vector<float>> biasValues(const Graph& g, int c, size_t axis, size_t rank, int64_t channels) {
  if (!passes::isFloatConst(g, c)) return std::nullopt;
  const Value& v = passes::val(g, c);
  if (v.shape.size() > rank) return std::nullopt;
  const auto data = passes::floats(g, c);
  if (data.size() == 1) return std::vector<float>(static_cast<size_t>(channels), data[0]);
  // Align right against the output; every dimension but `axis` must be 1.
  const size_t lead = rank - v.shape.size();
  for (size_t i = 0; i < v.shape.size(); ++i) {
    const size_t outAxis = lead + i;
    if (outAxis == axis ? v.shape[i] != channels : v.shape[i] != 1) return std::nullopt;
  }
  if (lead > axis) return std::nullopt;
  return data;
}

bool fuse(Graph& g, int producer, int addId, int bias) {
  Node& p = g.nodes[static_cast<size_t>(producer)];
  if (p.has("activation")) return false;
  const Value& out = passes::val(g, p.outputs[0]);
  const size_t rank = out.shape.size();
  if (p.op == Op::Conv) {
    const int64_t M = out.shape[1];
    auto b = biasValues(g, bias, 1, rank, M);
    if (!b) return false;
    const int old = p.inputs.size() > 2 ? p.inputs[2] : -1;
    if (old >= 0) {
      if (!passes::isFloatConst(g, old)) return false;
      const auto prev = passes::floats(g, old);
      for (size_t m = 0; m < b->size(); ++m) (*b)[m] += prev[m];
    }
    const std::string name = passes::val(g, p.inputs[1]).name + ".bias";
    const int nb = passes::addFloatConstant(g, name, {M}, *b);
    Node& conv = g.nodes[static_cast<size_t>(producer)];
    conv.inputs.resize(3);
    conv.inputs[2] = nb;
  } else if (p.op == Op::Gemm) {
    const int64_t N = out.shape[1];
    auto b = biasValues(g, bias, 1, rank, N);
    if (!b) return false;
    const int old = p.inputs.size() > 2 ? p.inputs[2] : -1;
    if (old >= 0) {
      if (!passes::isFloatConst(g, old)) return false;
      const auto prev = passes::floats(g, old);
      if (prev.size() != 1 && static_cast<int64_t>(prev.size()) != N) return false;
      const float beta = static_cast<float>(p.getFloat("beta", 1.0));
      for (size_t n = 0; n < b->size(); ++n) (*b)[n] += beta * prev[prev.size() == 1 ? 0 : n];
    }
    const std::string name = passes::val(g, p.inputs[1]).name + ".bias";
    const int nb = passes::addFloatConstant(g, name, {N}, *b);
    Node& gemm = g.nodes[static_cast<size_t>(producer)];
    gemm.inputs.resize(3);
    gemm.inputs[2] = nb;
    gemm.attrs["beta"] = 1.0;
  } else {  // MatMul
    if (p.inputs.size() > 2 || !passes::isFloatConst(g, p.inputs[1]) || passes::val(g, p.inputs[1]).shape.size() != 2)
      return false;
    const int64_t N = out.shape.back();
    auto b = biasValues(g, bias, rank - 1, rank, N);
    if (!b) return false;
    const int nb = passes::val(g, bias).shape == std::vector<int64_t>{N}
                       ? bias
                       : passes::addFloatConstant(g, passes::val(g, p.inputs[1]).name + ".bias", {N}, *b);
    g.nodes[static_cast<size_t>(producer)].inputs.push_back(nb);
  }
  if (addId >= 0) passes::absorb(g, producer, addId);
  return true;
}

/// An Add of a per-channel constant after DepthToSpace(Conv), as a ConvTranspose exporter writes
/// its bias after the sub-pixel lowering (`convtranspose-to-conv`): output channel c of the
/// DepthToSpace reads Conv channels (i * r + j) * C + c (DCR) or c * r * r + i * r + j (CRD), so
/// each of those gets b[c] as bias and the DepthToSpace writes the Add's output.
bool fuseThroughDepthToSpace(Graph& g, const passes::Uses& uses, int d2s, int addId, int bias) {
  const Node& d = g.nodes[static_cast<size_t>(d2s)];
  const int conv = passes::producerOp(g, d.inputs[0], Op::Conv);
  if (conv < 0 || uses.single(d.inputs[0]) != d2s) return false;
  const auto& y = passes::val(g, d.outputs[0]).shape;
  if (y.size() != 4) return false;
  const auto b = biasValues(g, bias, 1, 4, y[1]);
  if (!b) return false;
  const int64_t C = y[1], r = d.getInt("blocksize", 1);
  const bool dcr = d.getString("mode", "DCR") == "DCR";
  std::vector<float> phased(static_cast<size_t>(C * r * r));
  for (int64_t k = 0; k < C * r * r; ++k)
    phased[static_cast<size_t>(k)] = (*b)[static_cast<size_t>(dcr ? k % C : k / (r * r))];
  const int phasedBias = passes::addFloatConstant(g, passes::val(g, bias).name + ".phases", {C * r * r, 1, 1}, phased);
  if (!fuse(g, conv, -1, phasedBias)) return false;
  passes::absorb(g, d2s, addId);
  return true;
}

}  // namespace

void fuseBias(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    const Node& add = g.nodes[static_cast<size_t>(id)];
    if (add.op != Op::Add || add.dead || add.inputs.size() != 2 || add.has("activation")) continue;
    if (passes::val(g, add.outputs[0]).type != ElemType::Float32) continue;
    for (int k = 0; k < 2; ++k) {
      const int x = add.inputs[static_cast<size_t>(k)], c = add.inputs[static_cast<size_t>(1 - k)];
      const int p = passes::producerOp(g, x);
      if (p < 0 || uses.single(x) != id || !passes::isConst(g, c)) continue;
      const OpType& op = g.nodes[static_cast<size_t>(p)].op;
      if (op != Op::Conv && op != Op::Gemm && op != Op::MatMul && op != Op::DepthToSpace) continue;
      // The Add's output shape must be the producer's (the bias does not broadcast it further).
      if (passes::val(g, add.outputs[0]).shape != passes::val(g, x).shape) continue;
      if (op == Op::DepthToSpace ? fuseThroughDepthToSpace(g, uses, p, id, c) : fuse(g, p, id, c)) {
        uses.refresh();
        break;
      }
    }
  }
}

}  // namespace systole::compiler
