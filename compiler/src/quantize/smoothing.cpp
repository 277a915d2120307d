// Algorithm: find the eligible LayerNormalizations (smoothing.h), measure their outputs' channel
// maxima in one interpreter pass over the calibration samples, then rescale gamma, beta and the
// reading layers' weight rows in place. The output may reach the layers through Reshapes and
// Transposes that keep its last axis (attention's head layout). A gamma or beta that another node
// also reads (CSE merges identical ones) is copied first. A channel whose activation or weight
// maximum is 0 keeps s = 1; s is clamped to [1e-4, 1e4].
#include "quantize/smoothing.h"

#include <algorithm>
#include <cmath>

#include "quantize/channel_stats.h"
#include "quantize/own_constant.h"
#include "systole/compiler/float_ops.h"

namespace systole::compiler {

namespace {

bool isFloatConstant(const Value& v, int64_t elements) {
  return v.is_constant && v.type == ElemType::Float32 && v.elements() == elements;
}

/// A reading layer's weights as rows: row j (input channel j) holds N values (MatMul [K][N]; Gemm
/// with transB [N][K], whose row j is column j).
struct WeightRows {
  int value;
  int64_t N, rowStep, colStep;
};

/// Whether `n` moves whole rows of K: a Reshape or Transpose whose input and output keep K as the
/// last axis.
bool keepsRows(const Graph& g, const Node& n, int64_t K) {
  if (n.op != Op::Reshape && n.op != Op::Transpose) return false;
  const auto& in = g.values[static_cast<size_t>(n.inputs[0])].shape;
  const auto& out = g.values[static_cast<size_t>(n.outputs[0])].shape;
  if (in.empty() || out.empty() || in.back() != K || out.back() != K) return false;
  if (n.op == Op::Reshape) return true;
  const auto perm = n.getInts("perm");
  return !perm.empty() && perm.back() == static_cast<int64_t>(in.size()) - 1;
}

/// Appends the layers reading `y` (directly or through keepsRows nodes) as weight rows of K
/// channels; false if anything else reads it.
bool collectReaders(const Graph& g, const std::vector<std::vector<int>>& users, int y, int64_t K,
                    std::vector<WeightRows>& rows) {
  if (std::find(g.outputs.begin(), g.outputs.end(), y) != g.outputs.end()) return false;
  for (int id : users[static_cast<size_t>(y)]) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.inputs[0] == y && keepsRows(g, n, K)) {
      if (!collectReaders(g, users, n.outputs[0], K, rows)) return false;
      continue;
    }
    const bool gemm = n.op == Op::Gemm && n.getInt("transA", 0) == 0;
    if ((n.op != Op::MatMul && !gemm) || n.inputs.size() < 2 || n.inputs[0] != y || n.inputs[1] == y) return false;
    const Value& w = g.values[static_cast<size_t>(n.inputs[1])];
    if (w.shape.size() != 2 || users[static_cast<size_t>(n.inputs[1])].size() != 1) return false;
    const bool transB = gemm && n.getInt("transB", 0) != 0;
    const int64_t N = transB ? w.shape[0] : w.shape[1];
    if ((transB ? w.shape[1] : w.shape[0]) != K || !isFloatConstant(w, K * N)) return false;
    rows.push_back(transB ? WeightRows{n.inputs[1], N, 1, K} : WeightRows{n.inputs[1], N, N, 1});
  }
  return true;
}

struct Candidate {
  int norm;  // node id
  std::vector<WeightRows> layers;
};

std::vector<Candidate> candidates(const Graph& g) {
  const auto users = g.users();
  std::vector<Candidate> found;
  for (size_t id = 0; id < g.nodes.size(); ++id) {
    const Node& n = g.nodes[id];
    if (n.dead || n.op != Op::LayerNormalization || n.inputs.size() < 2) continue;
    const Value& y = g.values[static_cast<size_t>(n.outputs[0])];
    if (y.type != ElemType::Float32 || y.shape.empty()) continue;
    if (ops::normAxis(n.getInt("axis", -1), y.shape.size()) != y.shape.size() - 1) continue;
    bool extraOutputs = false;
    for (size_t k = 1; k < n.outputs.size(); ++k)
      extraOutputs |= n.outputs[k] >= 0 && !users[static_cast<size_t>(n.outputs[k])].empty();
    const int64_t K = y.shape.back();
    const bool hasBeta = n.inputs.size() > 2 && n.inputs[2] >= 0;
    if (extraOutputs || !isFloatConstant(g.values[static_cast<size_t>(n.inputs[1])], K) ||
        (hasBeta && !isFloatConstant(g.values[static_cast<size_t>(n.inputs[2])], K)))
      continue;
    std::vector<WeightRows> layers;
    if (collectReaders(g, users, n.outputs[0], K, layers) && !layers.empty())
      found.push_back({static_cast<int>(id), std::move(layers)});
  }
  return found;
}

/// Divides the norm's channels by s and multiplies its readers' weight rows by s.
void apply(Graph& g, const Candidate& c, const std::vector<double>& act, double alpha) {
  const auto row = [&](const WeightRows& l, int64_t j, int64_t n) -> float& {
    return reinterpret_cast<float*>(g.values[static_cast<size_t>(l.value)].data.data())[j * l.rowStep + n * l.colStep];
  };
  std::vector<double> s(act.size(), 1.0);
  for (size_t j = 0; j < act.size(); ++j) {
    double w = 0;
    for (const WeightRows& l : c.layers)
      for (int64_t n = 0; n < l.N; ++n)
        w = std::max(w, static_cast<double>(std::fabs(row(l, static_cast<int64_t>(j), n))));
    if (act[j] > 0 && w > 0) s[j] = std::clamp(std::pow(act[j], alpha) / std::pow(w, 1 - alpha), 1e-4, 1e4);
  }
  const Node& norm = g.nodes[static_cast<size_t>(c.norm)];
  const bool hasBeta = norm.inputs.size() > 2 && norm.inputs[2] >= 0;
  float* gamma = ownFloatInput(g, c.norm, 1, ".smoothed");
  float* beta = hasBeta ? ownFloatInput(g, c.norm, 2, ".smoothed") : nullptr;
  for (size_t j = 0; j < s.size(); ++j) {
    gamma[j] = static_cast<float>(gamma[j] / s[j]);
    if (beta) beta[j] = static_cast<float>(beta[j] / s[j]);
    for (const WeightRows& l : c.layers)
      for (int64_t n = 0; n < l.N; ++n) {
        float& w = row(l, static_cast<int64_t>(j), n);
        w = static_cast<float>(w * s[j]);
      }
  }
}

}  // namespace

SmoothingSummary smoothActivations(Graph& g, const std::vector<TensorMap>& calibration, double alpha, int samples,
                                   int jobs) {
  SmoothingSummary summary;
  const std::vector<Candidate> found = candidates(g);
  if (found.empty()) return summary;
  std::map<int, size_t> axisOf;
  for (const Candidate& c : found) {
    const int y = g.nodes[static_cast<size_t>(c.norm)].outputs[0];
    axisOf[y] = g.values[static_cast<size_t>(y)].shape.size() - 1;
  }
  const auto stats = channelStats(g, axisOf, calibration, samples, jobs);
  for (const Candidate& c : found) {
    const auto it = stats.find(g.nodes[static_cast<size_t>(c.norm)].outputs[0]);
    if (it == stats.end()) continue;
    apply(g, c, it->second.absmax, alpha);
    ++summary.norms;
    summary.layers += static_cast<int>(c.layers.size());
  }
  return summary;
}

}  // namespace systole::compiler
