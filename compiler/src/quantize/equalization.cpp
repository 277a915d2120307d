// Algorithm: collect the eligible Conv -> Conv pairs (equalization.h), give each its own copies of
// the weights and bias it rescales, turn the joining ReLU6s into ReLUs under Equalization::Relu6,
// then measure every A's output channel maxima in one interpreter pass. Rescaling a pair leaves B's
// output unchanged, so those maxima stay true for every other pair; but the pair B -> C rescales
// B's weight rows, and so the input columns that A -> B reads. The pairs therefore go in reverse
// graph order: each reads B's columns after B's own pair has moved them. A channel whose activation
// or weight maximum is 0 keeps s = 1.
#include "quantize/equalization.h"

#include <algorithm>
#include <cmath>

#include "quantize/channel_stats.h"
#include "quantize/own_constant.h"

namespace systole::compiler {

namespace {

/// A Conv's constant float weights [Cout, Cin / group, k...] seen as channel slabs.
struct ConvWeights {
  int64_t out = 0;         // Cout
  int64_t inPerOut = 0;    // Cin / group
  int64_t kernel = 0;      // product of the spatial dims
  bool depthwise = false;  // group == Cout == Cin, one input channel per output
};

std::optional<ConvWeights> convWeights(const Graph& g, const Node& n) {
  if (n.dead || n.op != Op::Conv || n.inputs.size() < 2 || n.inputs[1] < 0 || n.outputs.size() != 1)
    return std::nullopt;
  const Value& w = g.values[static_cast<size_t>(n.inputs[1])];
  if (!w.is_constant || w.type != ElemType::Float32 || w.shape.size() < 3 || w.elements() <= 0) return std::nullopt;
  ConvWeights c{w.shape[0], w.shape[1], w.elements() / (w.shape[0] * w.shape[1])};
  const int64_t group = n.getInt("group", 1);
  c.depthwise = group > 1 && group == c.out && c.inPerOut == 1;
  if (group != 1 && !c.depthwise) return std::nullopt;
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
    const Value& b = g.values[static_cast<size_t>(n.inputs[2])];
    if (!b.is_constant || b.type != ElemType::Float32 || b.elements() != c.out) return std::nullopt;
  }
  return c;
}

struct Pair {
  int a, b;  // node ids
  ConvWeights wa, wb;
  bool relu6 = false;  // joined by a clip from 0 that becomes a relu
};

/// Whether A's fused activation keeps the pair's function under rescaling (or may be made to).
std::optional<bool> joinIsRelu6(const Node& a, Equalization mode) {
  const std::string act = a.getString("activation", "");
  if (act.empty() || act == "relu") return false;
  if (act == "clip" && mode == Equalization::Relu6 && a.getFloat("clip_min", -1) == 0) return true;
  return std::nullopt;
}

std::vector<Pair> pairs(const Graph& g, Equalization mode) {
  const auto users = g.users();
  std::vector<Pair> found;
  for (int id : g.topoOrder()) {
    const Node& a = g.nodes[static_cast<size_t>(id)];
    const auto wa = convWeights(g, a);
    if (!wa) continue;
    const int y = a.outputs[0];
    const auto relu6 = joinIsRelu6(a, mode);
    if (!relu6 || g.values[static_cast<size_t>(y)].type != ElemType::Float32 ||
        std::find(g.outputs.begin(), g.outputs.end(), y) != g.outputs.end() ||
        users[static_cast<size_t>(y)].size() != 1)
      continue;
    const int bid = users[static_cast<size_t>(y)][0];
    const Node& b = g.nodes[static_cast<size_t>(bid)];
    const auto wb = convWeights(g, b);
    if (!wb || b.inputs[0] != y || b.inputs[1] == y) continue;
    const bool fits = wb->depthwise ? wb->out == wa->out : wb->inPerOut == wa->out;
    if (fits) found.push_back({id, bid, *wa, *wb, *relu6});
  }
  return found;
}

float* weightsOf(Graph& g, int node) {
  return reinterpret_cast<float*>(
      g.values[static_cast<size_t>(g.nodes[static_cast<size_t>(node)].inputs[1])].data.data());
}

/// Calls f(element) for every weight of B that multiplies its input channel i.
template <typename T, typename F>
void forInputChannel(T* w, const ConvWeights& c, int64_t i, F f) {
  if (c.depthwise) {
    for (int64_t k = 0; k < c.kernel; ++k) f(w[i * c.kernel + k]);
    return;
  }
  for (int64_t o = 0; o < c.out; ++o)
    for (int64_t k = 0; k < c.kernel; ++k) f(w[(o * c.inPerOut + i) * c.kernel + k]);
}

/// s_i for one pair from the maxima of A's output channels (equalization.h); 1 where a side is 0.
std::vector<double> scales(Graph& g, const Pair& p, const std::vector<double>& act) {
  std::vector<double> s(act.size(), 1.0);
  const double top = *std::max_element(act.begin(), act.end());
  const float* w2 = weightsOf(g, p.b);
  for (size_t i = 0; i < s.size(); ++i) {
    if (act[i] == 0) continue;
    if (p.wb.depthwise) {
      s[i] = std::max(act[i] / top, 1e-3);
      continue;
    }
    double r = 0;
    forInputChannel(w2, p.wb, static_cast<int64_t>(i),
                    [&](float v) { r = std::max(r, static_cast<double>(std::fabs(v))); });
    if (r > 0) s[i] = std::clamp(std::sqrt(act[i] / r), 1e-3, 1e3);
  }
  return s;
}

/// Divides A's output channel i (weights and bias) by s_i and multiplies B's input channel i by it.
void rescale(Graph& g, const Pair& p, const std::vector<double>& s) {
  float* w1 = weightsOf(g, p.a);
  float* w2 = weightsOf(g, p.b);
  const Node& a = g.nodes[static_cast<size_t>(p.a)];
  float* bias = a.inputs.size() > 2 && a.inputs[2] >= 0
                    ? reinterpret_cast<float*>(g.values[static_cast<size_t>(a.inputs[2])].data.data())
                    : nullptr;
  const int64_t slab = p.wa.inPerOut * p.wa.kernel;
  for (int64_t i = 0; i < p.wa.out; ++i) {
    const double si = s[static_cast<size_t>(i)];
    for (int64_t k = 0; k < slab; ++k) w1[i * slab + k] = static_cast<float>(w1[i * slab + k] / si);
    if (bias) bias[i] = static_cast<float>(bias[i] / si);
    forInputChannel(w2, p.wb, i, [&](float& v) { v = static_cast<float>(v * si); });
  }
}

}  // namespace

std::string_view equalizationName(Equalization e) {
  switch (e) {
    case Equalization::Off: return "off";
    case Equalization::On: return "on";
    case Equalization::Relu6: return "relu6";
  }
  return "?";
}

std::optional<Equalization> parseEqualization(std::string_view text) {
  for (Equalization e : {Equalization::Off, Equalization::On, Equalization::Relu6})
    if (text == equalizationName(e)) return e;
  return std::nullopt;
}

EqualizedPairs equalizedPairs(const Graph& g) {
  EqualizedPairs marks;
  for (const Node& n : g.nodes) {
    marks.pairs += n.getInt("equalized", 0) != 0;
    marks.relu6_to_relu += n.getInt("relu6_to_relu", 0) != 0;
  }
  return marks;
}

EqualizationSummary equalizeLayers(Graph& g, Equalization mode, const std::vector<TensorMap>& calibration, int samples,
                                   int jobs) {
  EqualizationSummary summary;
  if (mode == Equalization::Off) return summary;
  const std::vector<Pair> found = pairs(g, mode);
  for (const Pair& p : found) {
    g.nodes[static_cast<size_t>(p.a)].attrs["equalized"] = int64_t{1};
    ownFloatInput(g, p.a, 1, ".equalized");
    if (g.nodes[static_cast<size_t>(p.a)].inputs.size() > 2 && g.nodes[static_cast<size_t>(p.a)].inputs[2] >= 0)
      ownFloatInput(g, p.a, 2, ".equalized");
    ownFloatInput(g, p.b, 1, ".equalized");
    if (!p.relu6) continue;
    Node& a = g.nodes[static_cast<size_t>(p.a)];
    a.attrs["activation"] = std::string("relu");
    a.attrs.erase("clip_min");
    a.attrs.erase("clip_max");
    a.attrs["relu6_to_relu"] = int64_t{1};
    ++summary.relu6_relu;
  }
  summary.pairs = static_cast<int>(found.size());
  std::map<int, size_t> axisOf;
  for (const Pair& p : found) axisOf[g.nodes[static_cast<size_t>(p.a)].outputs[0]] = 1;
  const auto stats = channelStats(g, axisOf, calibration, samples, jobs);
  for (auto p = found.rbegin(); p != found.rend(); ++p) {
    const auto it = stats.find(g.nodes[static_cast<size_t>(p->a)].outputs[0]);
    if (it != stats.end() && it->second.absmax.size() == static_cast<size_t>(p->wa.out))
      rescale(g, *p, scales(g, *p, it->second.absmax));
  }
  return summary;
}

}  // namespace systole::compiler
