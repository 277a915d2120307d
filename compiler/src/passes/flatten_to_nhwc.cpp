// Algorithm: a Flatten (axis 1) of a 4-D tensor with more than one pixel, read only by matrix
// products with constant weights (Gemm with transA = 0, MatMul), flattens in NCHW order,
// (c, h, w) -> c * H * W + h * W + w, which the NPU's NHWC layout does not hold. Permuting the
// weights' K rows (columns for transB) to (h, w, c) order makes the products the same function of
// a flattening in NHWC order, (h * W + w) * C + c: the Flatten becomes FlattenNhwc (a Systole op,
// a copy of the NHWC bytes on the NPU) and each reader gets its permuted weights. Flattens with
// other readers are left alone (they run on the host).
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// The weights' input position and whether K runs along their columns, for a product reading the
/// flattened value as its first operand; nullopt for any other reader.
std::optional<std::pair<int, bool>> productWeights(const Graph& g, const Node& n, int v, int64_t K) {
  if (n.inputs.size() < 2 || n.inputs[0] != v || n.inputs[1] == v || !passes::isFloatConst(g, n.inputs[1]))
    return std::nullopt;
  const auto& w = passes::val(g, n.inputs[1]).shape;
  if (w.size() != 2) return std::nullopt;
  if (n.op == Op::Gemm && n.getInt("transA", 0) == 0) {
    const bool transB = n.getInt("transB", 0) != 0;
    if (w[transB ? 1 : 0] == K) return std::pair{1, transB};
  }
  if (n.op == Op::MatMul && w[0] == K) return std::pair{1, false};
  return std::nullopt;
}

}  // namespace

void flattenToNhwc(Graph& g) {
  passes::Uses uses(g);
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node f = g.nodes[id];
    if (f.dead || f.op != Op::Flatten || f.inputs.size() != 1 || f.getInt("axis", 1) != 1) continue;
    const std::vector<int64_t> x = passes::val(g, f.inputs[0]).shape;
    if (x.size() != 4 || x[2] * x[3] <= 1 || std::any_of(x.begin(), x.end(), [](int64_t d) { return d < 1; })) continue;
    const int64_t C = x[1], HW = x[2] * x[3], K = C * HW;
    const int v = f.outputs[0];
    if (uses.isGraphOutput(v) || uses.of(v).empty()) continue;
    bool all = true;
    for (int r : uses.of(v)) all = all && productWeights(g, g.nodes[static_cast<size_t>(r)], v, K).has_value();
    if (!all) continue;
    for (int r : uses.of(v)) {
      const auto [input, transB] = *productWeights(g, g.nodes[static_cast<size_t>(r)], v, K);
      const int wv = g.nodes[static_cast<size_t>(r)].inputs[static_cast<size_t>(input)];
      // Permuted straight from the weights' bytes into the new constant's: a classifier's first
      // FC layer can be most of the model (VGG's is 411 MB), so no float copy is made of either.
      const Value& weights = passes::val(g, wv);
      const std::vector<int64_t> shape = weights.shape;
      const int64_t M = transB ? shape[0] : shape[1];
      Value permutedValue;
      permutedValue.name = passes::uniqueName(g, weights.name + ".nhwc");
      permutedValue.type = ElemType::Float32;
      permutedValue.shape = shape;
      permutedValue.is_constant = true;
      permutedValue.data.resize(weights.data.size());
      const float* w = weights.as<float>();
      float* p = reinterpret_cast<float*>(permutedValue.data.data());
      for (int64_t c = 0; c < C; ++c)
        for (int64_t s = 0; s < HW; ++s) {
          const int64_t from = c * HW + s, to = s * C + c;
          for (int64_t m = 0; m < M; ++m) {
            if (transB)
              p[m * K + to] = w[m * K + from];
            else
              p[to * M + m] = w[from * M + m];
          }
        }
      const int permuted = g.addValue(std::move(permutedValue));
      g.nodes[static_cast<size_t>(r)].inputs[static_cast<size_t>(input)] = permuted;
    }
    Node& nhwc = g.nodes[id];
    nhwc.op = Op::FlattenNhwc;
    nhwc.attrs.clear();
  }
}

}  // namespace systole::compiler
