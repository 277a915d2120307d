// Algorithm (phase decomposition): a bilinear Resize of a 4-D tensor that upsamples H and W by one
// integer factor s blends, for output row o = s * i + r (phase r), the input rows i + a_r and
// i + a_r + 1 (a_r = -1 or 0) with weights (1 - w_r, w_r) that depend on the phase only, the rows
// clamped to the image; the same holds for columns. Such a Resize (half_pixel, pytorch_half_pixel
// and asymmetric coordinates; checked against the interpolation's own taps, clamping included, for
// every output index) becomes
//   Pad(edge) per window offset (a_y, a_x) in use: -a rows before, 1 + a after   the clamping
//   -> s * s depthwise 2x2 Convs, one per phase (ry, rx), reading its offset's Pad,
//      kernel[dy][dx] = wy_ry[dy] * wx_rx[dx]
//   -> Concat of the phases (channel (ry * s + rx) * C + c)
//   -> DepthToSpace(s, DCR)                                                      the interleave
// all of which run on the NPU. When every phase copies row i (a 1-pixel input: every tap clamps),
// the Resize is a nearest upsampling and only its mode changes. Other linear Resizes
// (align_corners, non-integer or unequal factors, more than kMaxPhases phases) are left alone:
// they run on the host in float.
#include "systole/compiler/float_ops.h"
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// One axis: the factor and, per output phase r, the window's first row relative to i (a_r) and
/// the weight of its second row (w_r).
struct AxisPhases {
  int64_t factor = 1;
  std::vector<int64_t> shift;
  std::vector<double> weight;
};

/// Phases (one Conv layer each) beyond which the Resize stays on the host: lraspp's x8 is 64.
constexpr int64_t kMaxPhases = 64;

/// Every phase copies input row i (as a 1-pixel input, whose taps all clamp, does): a nearest
/// upsampling.
bool copiesOnly(const AxisPhases& a) {
  for (size_t r = 0; r < a.shift.size(); ++r)
    if (a.shift[r] != 0 || a.weight[r] != 0.0) return false;
  return true;
}

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
      for (int64_t j = 0; j < n && all; ++j)
        all = sameBlend(actual(a.factor * j + r), blend(j + shift, j + shift + 1, t.w, n));
      if (all) found = std::pair{shift, t.w};
    }
    if (!found) return std::nullopt;
    a.shift.push_back(found->first);
    a.weight.push_back(found->second);
  }
  return a;
}

/// The phases of both spatial axes, or nullopt when `n` is not a decomposable bilinear Resize.
std::optional<std::pair<AxisPhases, AxisPhases>> plan(const Graph& g, const Node& n) {
  if ((n.op != Op::Resize && n.op != Op::Upsample) || n.outputs.size() != 1 || n.inputs.empty()) return std::nullopt;
  const auto& x = passes::val(g, n.inputs[0]).shape;
  const auto& y = passes::val(g, n.outputs[0]).shape;
  if (x.size() != 4 || y.size() != 4 || std::any_of(x.begin(), x.end(), [](int64_t d) { return d < 1; }))
    return std::nullopt;
  if (passes::val(g, n.inputs[0]).type != ElemType::Float32 || x[0] != y[0] || x[1] != y[1]) return std::nullopt;
  try {
    const auto p = ops::resizeParams(n, g.opset, ops::graphOperands(g, n), y);
    if (p.mode != "linear" || p.scales[0] != 1.0 || p.scales[1] != 1.0) return std::nullopt;
    auto h = planAxis(p, p.scales[2], x[2], y[2]);
    auto w = planAxis(p, p.scales[3], x[3], y[3]);
    if (!h || !w || h->factor != w->factor) return std::nullopt;  // DepthToSpace has one block size
    if (!copiesOnly(*h) || !copiesOnly(*w)) {
      if (h->factor * w->factor > kMaxPhases) return std::nullopt;
    }
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
  const std::string base = passes::val(g, rs.outputs[0]).name;
  g.nodes[static_cast<size_t>(id)].dead = true;

  // The clamping: one edge Pad per window offset (ay, ax) some phase uses.
  std::map<std::pair<int64_t, int64_t>, int> padded;
  const auto padFor = [&](int64_t ay, int64_t ax) {
    if (auto it = padded.find({ay, ax}); it != padded.end()) return it->second;
    const std::string offset = std::to_string(-ay) + std::to_string(-ax);
    const std::vector<int64_t> pads = {0, 0, -ay, -ax, 0, 0, 1 + ay, 1 + ax};
    Node pad;
    pad.op = Op::Pad;
    pad.name = passes::nameLike(rs.name, "Pad" + offset);
    pad.attrs = {{"mode", std::string("edge")}};
    if (g.opset < 11) {
      pad.inputs = {rs.inputs[0]};
      pad.attrs["pads"] = pads;
    } else {
      pad.inputs = {rs.inputs[0], passes::addInt64Constant(g, rs.name + ".pads" + offset, pads)};
    }
    pad.outputs = {passes::addActivation(g, base + "_edge" + offset, {N, C, H + 1, W + 1})};
    padded[{ay, ax}] = pad.outputs[0];
    g.addNode(std::move(pad));
    return padded[{ay, ax}];
  };

  // One depthwise 2x2 Conv per phase, concatenated phase-major.
  Node concat;
  concat.name = passes::nameLike(rs.name, "Concat");
  concat.op = Op::Concat;
  concat.attrs = {{"axis", int64_t{1}}};
  for (int64_t ry = 0; ry < s; ++ry)
    for (int64_t rx = 0; rx < s; ++rx) {
      const std::string phase = std::to_string(ry) + "_" + std::to_string(rx);
      const double wy = ah.weight[static_cast<size_t>(ry)], wx = aw.weight[static_cast<size_t>(rx)];
      std::vector<float> k;
      for (int64_t c = 0; c < C; ++c)
        for (double ky : {1.0 - wy, wy})
          for (double kx : {1.0 - wx, wx}) k.push_back(static_cast<float>(ky * kx));
      Node conv;
      conv.name = passes::nameLike(rs.name, "Conv_phase" + phase);
      conv.op = Op::Conv;
      conv.inputs = {padFor(ah.shift[static_cast<size_t>(ry)], aw.shift[static_cast<size_t>(rx)]),
                     passes::addFloatConstant(g, rs.name + ".phase" + phase + "_weight", {C, 1, 2, 2}, k)};
      conv.outputs = {passes::addActivation(g, base + "_phase" + phase, {N, C, H, W})};
      conv.attrs = {{"group", C}, {"kernel_shape", std::vector<int64_t>{2, 2}}};
      concat.inputs.push_back(conv.outputs[0]);
      g.addNode(std::move(conv));
    }
  concat.outputs = {passes::addActivation(g, base + "_phases", {N, s * s * C, H, W})};
  const int phases = concat.outputs[0];
  g.addNode(std::move(concat));

  Node d2s;
  d2s.name = passes::nameLike(rs.name, "DepthToSpace");
  d2s.op = Op::DepthToSpace;
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
    if (!phases) continue;
    if (copiesOnly(phases->first) && copiesOnly(phases->second)) {
      // Output pixel (s * i + r, s * j + q) is input pixel (i, j): the nearest upsampling says so.
      Node& n = g.nodes[id];
      n.attrs["mode"] = std::string("nearest");
      n.attrs["coordinate_transformation_mode"] = std::string("asymmetric");
      n.attrs["nearest_mode"] = std::string("floor");
      continue;
    }
    decompose(g, static_cast<int>(id), phases->first, phases->second);
  }
}

}  // namespace systole::compiler
