// Algorithm (phase decomposition): a bilinear Resize of a 4-D tensor that upsamples H and W by one
// integer factor s blends, for output row o = s * i + r (phase r), the input rows i + a_r and
// i + a_r + 1 with weights (1 - w_r, w_r) that depend on the phase only, the rows clamped to the
// image; the same holds for columns. Such a Resize (half_pixel, pytorch_half_pixel and asymmetric
// coordinates; checked against the interpolation's own taps, clamping included, for every output
// index) becomes
//   Pad(edge, 1 pixel on each side of H and W)          the clamping
//   -> s * s depthwise 3x3 Convs, one per phase (ry, rx),   kernel[dy][dx] = wy_ry[dy] * wx_rx[dx]
//   -> Concat of the phases (channel (ry * s + rx) * C + c)
//   -> DepthToSpace(s, DCR)                             the interleave
// all of which run on the NPU. Other linear Resizes (align_corners, non-integer or unequal factors)
// are left alone: they run on the host in float.
#include "float_ops.h"
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// Each phase's window: input rows [i - 1, i + 1], the input padded by one pixel on each side.
constexpr int64_t kWindow = 3;

/// One axis: the factor and, per output phase, the weights of the window's taps.
struct AxisPhases {
  int64_t factor = 1;
  std::vector<std::vector<float>> kernel;  // [phase][tap]
};

/// The input weights output index o gives each input index, clamped: a sum of (index, weight).
std::map<int64_t, double> blend(int64_t lo, int64_t hi, double w, int64_t n) {
  std::map<int64_t, double> m;
  m[std::clamp<int64_t>(lo, 0, n - 1)] += 1.0 - w;
  m[std::clamp<int64_t>(hi, 0, n - 1)] += w;
  for (auto it = m.begin(); it != m.end();) it = std::abs(it->second) < 1e-9 ? m.erase(it) : std::next(it);
  return m;
}

bool sameBlend(const std::map<int64_t, double>& a, const std::map<int64_t, double>& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || std::abs(i->second - j->second) > 1e-6) return false;
  return true;
}

std::optional<AxisPhases> planAxis(const ops::ResizeParams& p, double scale, int64_t n, int64_t out) {
  if (out % n != 0 || out / n < 2) return std::nullopt;
  AxisPhases a;
  a.factor = out / n;
  const auto taps = ops::resizeLinearTaps(p, scale, n, out);
  const auto actual = [&](int64_t o) {
    const ops::LinearTap& t = taps[static_cast<size_t>(o)];
    return blend(t.lo, t.hi, t.w, n);
  };
  for (int64_t r = 0; r < a.factor; ++r) {
    // Candidates (a_r, w_r) from each row's own taps; the first one that explains every row wins.
    std::optional<std::pair<int64_t, double>> found;
    for (int64_t i = 0; i < n && !found; ++i) {
      const ops::LinearTap& t = taps[static_cast<size_t>(a.factor * i + r)];
      const int64_t shift = t.lo - i;
      if (shift != -1 && shift != 0) continue;
      bool all = true;
      for (int64_t j = 0; j < n && all; ++j) all = sameBlend(actual(a.factor * j + r), blend(j + shift, j + shift + 1, t.w, n));
      if (all) found = std::pair{shift, t.w};
    }
    if (!found) return std::nullopt;
    std::vector<float> k(kWindow, 0.f);
    k[static_cast<size_t>(found->first + 1)] += static_cast<float>(1.0 - found->second);
    k[static_cast<size_t>(found->first + 2)] += static_cast<float>(found->second);
    a.kernel.push_back(k);
  }
  return a;
}

/// The phases of both spatial axes, or nullopt when `n` is not a decomposable bilinear Resize.
std::optional<std::pair<AxisPhases, AxisPhases>> plan(const Graph& g, const Node& n) {
  if ((n.op != "Resize" && n.op != "Upsample") || n.outputs.size() != 1 || n.inputs.empty()) return std::nullopt;
  const auto& x = passes::val(g, n.inputs[0]).shape;
  const auto& y = passes::val(g, n.outputs[0]).shape;
  if (x.size() != 4 || y.size() != 4 || std::any_of(x.begin(), x.end(), [](int64_t d) { return d < 1; })) return std::nullopt;
  if (passes::val(g, n.inputs[0]).type != ElemType::Float32 || x[0] != y[0] || x[1] != y[1]) return std::nullopt;
  try {
    const auto p = ops::resizeParams(n, g.opset, ops::graphOperands(g, n), y);
    if (p.mode != "linear" || p.scales[0] != 1.0 || p.scales[1] != 1.0) return std::nullopt;
    auto h = planAxis(p, p.scales[2], x[2], y[2]);
    auto w = planAxis(p, p.scales[3], x[3], y[3]);
    if (!h || !w || h->factor != w->factor) return std::nullopt;  // DepthToSpace has one block size
    return std::pair{*h, *w};
  } catch (const ops::NeedsData&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

void decompose(Graph& g, int id, const AxisPhases& ah, const AxisPhases& aw) {
  const Node rs = g.nodes[static_cast<size_t>(id)];
  const std::vector<int64_t> x = passes::val(g, rs.inputs[0]).shape;  // copy: g.values grows below
  const int64_t N = x[0], C = x[1], H = x[2], W = x[3], s = ah.factor;
  const int64_t py = kWindow / 2, px = kWindow / 2;
  const std::string base = passes::val(g, rs.outputs[0]).name;

  // The clamping: an edge Pad (reusing the Resize's node slot).
  const int padded = passes::addActivation(g, base + "_edge", {N, C, H + 2 * py, W + 2 * px});
  {
    Node& pad = g.nodes[static_cast<size_t>(id)];
    const std::vector<int64_t> pads = {0, 0, py, px, 0, 0, py, px};
    pad.op = "Pad";
    pad.name = passes::nameLike(rs.name, "Pad");
    pad.attrs = {{"mode", std::string("edge")}};
    if (g.opset < 11) {
      pad.inputs = {rs.inputs[0]};
      pad.attrs["pads"] = pads;
    } else {
      pad.inputs = {rs.inputs[0], passes::addInt64Constant(g, rs.name + ".pads", pads)};
    }
    pad.outputs = {padded};
    passes::val(g, padded).producer = id;
  }

  // One depthwise Conv per phase, concatenated phase-major.
  Node concat;
  concat.name = passes::nameLike(rs.name, "Concat");
  concat.op = "Concat";
  concat.attrs = {{"axis", int64_t{1}}};
  for (int64_t ry = 0; ry < s; ++ry)
    for (int64_t rx = 0; rx < s; ++rx) {
      const std::string phase = std::to_string(ry) + "_" + std::to_string(rx);
      std::vector<float> k;
      for (int64_t c = 0; c < C; ++c)
        for (float wy : ah.kernel[static_cast<size_t>(ry)])
          for (float wx : aw.kernel[static_cast<size_t>(rx)]) k.push_back(wy * wx);
      Node conv;
      conv.name = passes::nameLike(rs.name, "Conv_phase" + phase);
      conv.op = "Conv";
      conv.inputs = {padded, passes::addFloatConstant(g, rs.name + ".phase" + phase + "_weight", {C, 1, kWindow, kWindow}, k)};
      conv.outputs = {passes::addActivation(g, base + "_phase" + phase, {N, C, H, W})};
      conv.attrs = {{"group", C}, {"kernel_shape", std::vector<int64_t>{kWindow, kWindow}}};
      concat.inputs.push_back(conv.outputs[0]);
      g.addNode(std::move(conv));
    }
  concat.outputs = {passes::addActivation(g, base + "_phases", {N, s * s * C, H, W})};
  const int phases = concat.outputs[0];
  g.addNode(std::move(concat));

  Node d2s;
  d2s.name = passes::nameLike(rs.name, "DepthToSpace");
  d2s.op = "DepthToSpace";
  d2s.inputs = {phases};
  d2s.outputs = {rs.outputs[0]};
  d2s.attrs = {{"blocksize", s}, {"mode", std::string("DCR")}};
  g.addNode(std::move(d2s));
}

}  // namespace

void resizeLinearToConv(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    if (g.nodes[id].dead) continue;
    const auto phases = plan(g, g.nodes[id]);
    if (phases) decompose(g, static_cast<int>(id), phases->first, phases->second);
  }
}

}  // namespace systole::compiler
