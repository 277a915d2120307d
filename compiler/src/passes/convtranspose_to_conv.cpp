// Algorithm (sub-pixel decomposition): a 2-D ConvTranspose with group 1, dilation 1 and one stride
// s on both axes is a Conv whose C_out * s * s output channels are the s x s output phases,
// followed by DepthToSpace(blocksize s, DCR) and, only where the pads make the result a crop, a
// spatial Slice. Per axis (kernel K, input n, pads pb/pe, output OUT): the uncropped output
// o' = o + pb = s * i + k receives x[i] * W[k], so phase r = o' mod s of row q = o' div s is
// sum_m x[q - m] * W[s * m + r]: a correlation with the kernel's taps of one residue, flipped.
// With M = ceil(K / s), pb = s * a + b and output phase rho = o mod s (r = (rho + b) mod s,
// carry c = (rho + b >= s)), the phase-rho output of row u is
//   z[u] = sum_t x[u + t - P] * V[t],  V[t] = W[s * (M - 1 + c - t) + r]  (0 outside the kernel),
// one Conv with T = M + (b > 0) taps and begin pad P = M - 1 - a for every phase. A negative P
// becomes 0 plus a crop of s * (-P) rows; the end pad is the smallest giving ceil(OUT / s) rows.
// Other ConvTransposes (groups, dilation, unequal strides, 1-D) are left alone: they run on the
// host in float.
#include "systole/compiler/float_ops.h"
#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// The decomposition along one spatial axis.
struct AxisPlan {
  int64_t M = 0, b = 0, T = 0;       // kernel taps per phase, pb mod s, Conv taps
  int64_t padBegin = 0, padEnd = 0;  // the Conv's pads
  int64_t cropBegin = 0, rows = 0;   // the Slice: [cropBegin, cropBegin + OUT) of s * rows
  int64_t out = 0;                   // OUT

  /// The ConvTranspose tap feeding Conv tap t of output phase rho, or -1.
  int64_t tap(int64_t rho, int64_t t, int64_t s, int64_t K) const {
    const int64_t carry = rho + b >= s ? 1 : 0, r = (rho + b) % s;
    const int64_t m = M - 1 + carry - t;
    const int64_t k = s * m + r;
    return m >= 0 && k < K ? k : -1;
  }
};

AxisPlan planAxis(int64_t s, int64_t K, int64_t n, int64_t pb, int64_t out) {
  AxisPlan a;
  a.M = (K + s - 1) / s;
  a.b = pb % s;
  a.T = a.M + (a.b > 0 ? 1 : 0);
  a.out = out;
  const int64_t P = a.M - 1 - pb / s;
  const int64_t shift = std::max<int64_t>(0, -P);  // rows computed before the first one kept
  a.padBegin = std::max<int64_t>(0, P);
  const int64_t rows = (out + s - 1) / s;
  a.padEnd = std::max<int64_t>(0, rows + shift - 1 + a.T - n - a.padBegin);
  a.rows = n + a.padBegin + a.padEnd - a.T + 1;
  a.cropBegin = s * shift;
  return a;
}

bool needsCrop(const AxisPlan& a, int64_t s) { return a.cropBegin != 0 || s * a.rows != a.out; }

void decompose(Graph& g, int id) {
  const Node ct = g.nodes[static_cast<size_t>(id)];
  const std::vector<int64_t> x = passes::val(g, ct.inputs[0]).shape;       // copies: g.values grows below
  const std::vector<int64_t> wShape = passes::val(g, ct.inputs[1]).shape;  // [C_in, C_out, KH, KW]
  const int64_t Cin = wShape[0], Cout = wShape[1], KH = wShape[2], KW = wShape[3];
  const auto win = ops::transposedWindows(ct, x, {KH, KW});
  const int64_t s = win.strides[0];
  const AxisPlan ph = planAxis(s, KH, x[2], win.padBegin[0], win.out[0]);
  const AxisPlan pw = planAxis(s, KW, x[3], win.padBegin[1], win.out[1]);

  // The Conv's weight [(rho_h * s + rho_w) * C_out + co, ci, th, tw] and its bias per phase.
  const std::vector<float> w = passes::floats(g, ct.inputs[1]);
  const int64_t phases = s * s, M = phases * Cout;
  std::vector<float> v(static_cast<size_t>(M * Cin * ph.T * pw.T), 0.f);
  for (int64_t rh = 0; rh < s; ++rh)
    for (int64_t rw = 0; rw < s; ++rw)
      for (int64_t co = 0; co < Cout; ++co)
        for (int64_t ci = 0; ci < Cin; ++ci)
          for (int64_t th = 0; th < ph.T; ++th)
            for (int64_t tw = 0; tw < pw.T; ++tw) {
              const int64_t kh = ph.tap(rh, th, s, KH), kw = pw.tap(rw, tw, s, KW);
              if (kh < 0 || kw < 0) continue;
              const int64_t m = (rh * s + rw) * Cout + co;
              v[static_cast<size_t>(((m * Cin + ci) * ph.T + th) * pw.T + tw)] =
                  w[static_cast<size_t>(((ci * Cout + co) * KH + kh) * KW + kw)];
            }
  const int weight = passes::addFloatConstant(g, ct.name + ".phase_weight", {M, Cin, ph.T, pw.T}, v);
  int bias = -1;
  if (ct.inputs.size() > 2 && ct.inputs[2] >= 0) {
    const std::vector<float> b = passes::floats(g, ct.inputs[2]);
    std::vector<float> pb;
    for (int64_t p = 0; p < phases; ++p) pb.insert(pb.end(), b.begin(), b.end());
    bias = passes::addFloatConstant(g, ct.name + ".phase_bias", {M}, pb);
  }
  const int out = ct.outputs[0];
  const bool crop = needsCrop(ph, s) || needsCrop(pw, s);
  const int spaced =
      crop ? passes::addActivation(g, passes::val(g, out).name + "_uncropped", {x[0], Cout, s * ph.rows, s * pw.rows})
           : out;
  const int phased =
      s == 1 ? spaced : passes::addActivation(g, passes::val(g, out).name + "_phases", {x[0], M, ph.rows, pw.rows});

  Node& conv = g.nodes[static_cast<size_t>(id)];
  conv.op = Op::Conv;
  conv.inputs = {ct.inputs[0], weight};
  if (bias >= 0) conv.inputs.push_back(bias);
  conv.outputs = {phased};
  conv.attrs = {{"kernel_shape", std::vector<int64_t>{ph.T, pw.T}},
                {"pads", std::vector<int64_t>{ph.padBegin, pw.padBegin, ph.padEnd, pw.padEnd}}};
  passes::val(g, phased).producer = id;

  if (s > 1) {
    Node d2s;
    d2s.name = passes::nameLike(ct.name, "DepthToSpace");
    d2s.op = Op::DepthToSpace;
    d2s.inputs = {phased};
    d2s.outputs = {spaced};
    d2s.attrs = {{"blocksize", s}, {"mode", std::string("DCR")}};
    g.addNode(std::move(d2s));
  }
  if (!crop) return;

  Node slice;
  slice.name = passes::nameLike(ct.name, "Slice");
  slice.op = Op::Slice;
  const std::vector<int64_t> starts = {ph.cropBegin, pw.cropBegin},
                             ends = {ph.cropBegin + ph.out, pw.cropBegin + pw.out}, axes = {2, 3};
  if (g.opset < 10) {
    slice.inputs = {spaced};
    slice.attrs = {{"starts", starts}, {"ends", ends}, {"axes", axes}};
  } else {
    slice.inputs = {spaced, passes::addInt64Constant(g, ct.name + ".crop_starts", starts),
                    passes::addInt64Constant(g, ct.name + ".crop_ends", ends),
                    passes::addInt64Constant(g, ct.name + ".crop_axes", axes)};
  }
  slice.outputs = {out};
  g.addNode(std::move(slice));
}

/// Why the ConvTranspose `n` is not decomposed (it then runs on the host), or "".
std::string subPixelIneligibility(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || !passes::isFloatConst(g, n.inputs[1])) return "its weights are not constant";
  if (n.inputs.size() > 2 && n.inputs[2] >= 0 && !passes::isFloatConst(g, n.inputs[2]))
    return "its bias is not constant";
  const auto& x = passes::val(g, n.inputs[0]).shape;
  const auto& w = passes::val(g, n.inputs[1]).shape;
  if (x.size() != 4 || w.size() != 4 || std::any_of(x.begin(), x.end(), [](int64_t d) { return d < 1; }))
    return "only 2-D ConvTransposes with static shapes are decomposed";
  if (n.getInt("group", 1) != 1) return "grouped ConvTransposes are not decomposed";
  try {
    const auto win = ops::transposedWindows(n, x, {w[2], w[3]});
    if (win.dilations != std::vector<int64_t>{1, 1}) return "dilated ConvTransposes are not decomposed";
    if (win.strides[0] != win.strides[1]) return "ConvTransposes with different strides per axis are not decomposed";
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

}  // namespace

void convTransposeToConv(Graph& g) {
  const size_t count = g.nodes.size();
  for (size_t id = 0; id < count; ++id) {
    const Node& n = g.nodes[id];
    if (n.dead || n.op != Op::ConvTranspose || n.outputs.size() != 1 || !subPixelIneligibility(g, n).empty()) continue;
    decompose(g, static_cast<int>(id));
  }
}

}  // namespace systole::compiler
