// Algorithm: for each inference BatchNormalization whose input comes from a Conv or Gemm that has
// no other reader, with constant weights and BN parameters: per output channel c,
//   s[c] = gamma[c] / sqrt(var[c] + eps),  W'[c, ...] = W[c, ...] * s[c],
//   b'[c] = (b[c] - mean[c]) * s[c] + beta[c]   (b = 0 when the Conv has no bias).
// For Gemm the channel is column n of the output: B's column n (row n with transB) is scaled,
// and C' = (beta_gemm * C - mean) * s + beta_bn with beta_gemm set to 1; a C that is neither a
// scalar nor per-column is left alone. The folded node takes over the BN's output; the new weights
// are new constants (the old ones may be shared and are dropped by compaction when unused).
// A Mul by a constant scale per output channel (or one scalar) after a Conv or Gemm folds the same
// way, as a BatchNormalization with s = the scale, mean = beta = 0: exporters that spell out an
// affine layer (PaddlePaddle's MobileOne blocks: x * w_0 + w_1) then leave an Add of a constant,
// which fuse-bias folds in turn.
#include <cmath>

#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

using passes::val;

bool foldIntoConv(Graph& g, int convId, int bnId, const passes::BnParams& p) {
  Node& conv = g.nodes[static_cast<size_t>(convId)];
  const int w = conv.inputs[1];
  const int b = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
  if (!passes::isFloatConst(g, w) || (b >= 0 && !passes::isFloatConst(g, b))) return false;
  const Value& wv = val(g, w);
  const int64_t M = wv.shape[0];
  if (static_cast<int64_t>(p.s.size()) != M) return false;
  std::vector<float> weights = passes::floats(g, w);
  const int64_t per = wv.elements() / M;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t i = 0; i < per; ++i) weights[static_cast<size_t>(m * per + i)] *= p.s[static_cast<size_t>(m)];
  std::vector<float> bias = b >= 0 ? passes::floats(g, b) : std::vector<float>(static_cast<size_t>(M), 0.f);
  for (size_t m = 0; m < bias.size(); ++m) bias[m] = (bias[m] - p.mean[m]) * p.s[m] + p.beta[m];
  const std::vector<int64_t> wShape = wv.shape;
  const std::string base = val(g, w).name;
  const int newW = passes::addFloatConstant(g, base + ".bn", wShape, weights);
  const int newB = passes::addFloatConstant(g, base + ".bn_bias", {M}, bias);
  Node& c = g.nodes[static_cast<size_t>(convId)];
  c.inputs.resize(3);
  c.inputs[1] = newW;
  c.inputs[2] = newB;
  passes::absorb(g, convId, bnId);
  return true;
}

bool foldIntoGemm(Graph& g, int gemmId, int bnId, const passes::BnParams& p) {
  Node& gemm = g.nodes[static_cast<size_t>(gemmId)];
  const int bIn = gemm.inputs[1];
  const int cIn = gemm.inputs.size() > 2 ? gemm.inputs[2] : -1;
  if (!passes::isFloatConst(g, bIn) || (cIn >= 0 && !passes::isFloatConst(g, cIn))) return false;
  const bool transB = gemm.getInt("transB", 0) != 0;
  const Value& bv = val(g, bIn);
  const int64_t N = transB ? bv.shape[0] : bv.shape[1];
  const int64_t K = transB ? bv.shape[1] : bv.shape[0];
  if (static_cast<int64_t>(p.s.size()) != N) return false;
  std::vector<float> c(static_cast<size_t>(N), 0.f);
  if (cIn >= 0) {
    const auto cv = passes::floats(g, cIn);
    if (cv.size() != 1 && static_cast<int64_t>(cv.size()) != N) return false;
    const float beta = static_cast<float>(gemm.getFloat("beta", 1.0));
    for (int64_t n = 0; n < N; ++n) c[static_cast<size_t>(n)] = beta * cv[cv.size() == 1 ? 0 : static_cast<size_t>(n)];
  }
  std::vector<float> weights = passes::floats(g, bIn);
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)
      weights[static_cast<size_t>(transB ? n * K + k : k * N + n)] *= p.s[static_cast<size_t>(n)];
  for (size_t n = 0; n < c.size(); ++n) c[n] = (c[n] - p.mean[n]) * p.s[n] + p.beta[n];
  const std::vector<int64_t> bShape = bv.shape;
  const std::string base = bv.name;
  const int newB = passes::addFloatConstant(g, base + ".bn", bShape, weights);
  const int newC = passes::addFloatConstant(g, base + ".bn_bias", {N}, c);
  Node& gm = g.nodes[static_cast<size_t>(gemmId)];
  gm.inputs.resize(3);
  gm.inputs[1] = newB;
  gm.inputs[2] = newC;
  gm.attrs["beta"] = 1.0;
  passes::absorb(g, gemmId, bnId);
  return true;
}

/// `c` as one scale per channel of an output of `outRank` dimensions whose channels are on axis
/// `axis` (`channels` of them): a scalar, or a constant 1 everywhere but that axis; else nullopt.
std::optional<std::vector<float>> perChannelScale(const Graph& g, int c, size_t outRank, size_t axis,
                                                  int64_t channels) {
  if (!passes::isFloatConst(g, c)) return std::nullopt;
  const Value& v = val(g, c);
  const std::vector<float> data = passes::floats(g, c);
  if (data.size() == 1) return std::vector<float>(static_cast<size_t>(channels), data[0]);
  if (v.shape.size() > outRank || static_cast<int64_t>(data.size()) != channels) return std::nullopt;
  const size_t offset = outRank - v.shape.size();  // broadcasting aligns the trailing dimensions
  for (size_t d = 0; d < v.shape.size(); ++d)
    if (v.shape[d] != (d + offset == axis ? channels : 1)) return std::nullopt;
  return data;
}

/// A Mul of a Conv's or Gemm's output (read by nothing else) by a per-channel constant, as a
/// BatchNormalization's parameters for the fold.
std::optional<passes::BnParams> scaleParams(const Graph& g, const passes::Uses& uses, int mulId, int& producer) {
  const Node& mul = g.nodes[static_cast<size_t>(mulId)];
  for (int k : {0, 1}) {
    const int x = mul.inputs[static_cast<size_t>(k)], c = mul.inputs[static_cast<size_t>(1 - k)];
    producer = passes::producerOp(g, x);
    if (producer < 0 || uses.single(x) != mulId) continue;
    const Node& p = g.nodes[static_cast<size_t>(producer)];
    if ((p.op != Op::Conv && p.op != Op::Gemm) || p.has("activation")) continue;
    const size_t rank = val(g, x).shape.size();
    if (rank < 2) continue;
    const int64_t channels = val(g, x).shape[1];
    if (auto s = perChannelScale(g, c, rank, 1, channels)) {
      passes::BnParams bn;
      bn.s = *s;
      bn.mean.assign(s->size(), 0.f);
      bn.beta.assign(s->size(), 0.f);
      return bn;
    }
  }
  return std::nullopt;
}

}  // namespace

void foldBatchNorm(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    const Node& bn = g.nodes[static_cast<size_t>(id)];
    if (bn.op != Op::BatchNormalization || bn.dead) continue;
    const int x = bn.inputs[0];
    const int producer = passes::producerOp(g, x);
    if (producer < 0 || uses.single(x) != id) continue;
    const OpType& op = g.nodes[static_cast<size_t>(producer)].op;
    if (op != Op::Conv && op != Op::Gemm) continue;
    if (g.nodes[static_cast<size_t>(producer)].has("activation")) continue;
    const auto p = passes::batchNormParams(g, bn);
    if (!p) continue;
    const bool done = op == Op::Conv ? foldIntoConv(g, producer, id, *p) : foldIntoGemm(g, producer, id, *p);
    if (done) uses.refresh();
  }
  for (int id : g.topoOrder()) {
    const Node& mul = g.nodes[static_cast<size_t>(id)];
    if (mul.op != Op::Mul || mul.dead || mul.inputs.size() != 2) continue;
    int producer = -1;
    const auto p = scaleParams(g, uses, id, producer);
    if (!p) continue;
    const bool conv = g.nodes[static_cast<size_t>(producer)].op == Op::Conv;
    if (conv ? foldIntoConv(g, producer, id, *p) : foldIntoGemm(g, producer, id, *p)) uses.refresh();
  }
}

}  // namespace systole::compiler
