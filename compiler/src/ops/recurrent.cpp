// Recurrent layers: LSTM (ONNX's gate order i, o, f, c; forward, reverse and bidirectional; both
// layouts; peepholes, clip and input_forget). A recurrence has no NPU lowering: it runs on the
// host, its input projection as one GEMM over the whole sequence, then one small GEMM per step.
#include <algorithm>
#include <cmath>

#include "ops/op_def.h"
#include "reference/float_gemm.h"

namespace systole::compiler::float_kernels {

namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

/// The dimensions of an LSTM node as its inputs' shapes give them.
struct LstmDims {
  int64_t S, B, I, D, H;
  bool batchFirst;  // layout = 1: X [B, S, I], Y [B, S, D, H], Y_h and Y_c [B, D, H]
};

LstmDims lstmDims(const Node& n, const Shape& x, const Shape& w, const Shape& r) {
  if (x.size() != 3 || w.size() != 3 || r.size() != 3) throw Error("LSTM X, W and R must have rank 3");
  const bool batchFirst = n.getInt("layout", 0) != 0;
  const LstmDims d{batchFirst ? x[1] : x[0], batchFirst ? x[0] : x[1], x[2], w[0], r[2], batchFirst};
  const std::string direction = n.getString("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    throw Error("LSTM direction '" + direction + "' is not forward, reverse or bidirectional");
  if (d.D != (direction == "bidirectional" ? 2 : 1))
    throw Error("LSTM W's first dimension does not match its direction");
  if (n.getInt("hidden_size", d.H) != d.H || w[1] != 4 * d.H || w[2] != d.I || r != Shape{d.D, 4 * d.H, d.H})
    throw Error("LSTM W " + ops::shapeText(w) + " and R " + ops::shapeText(r) + " do not match X " + ops::shapeText(x) +
                " and hidden_size " + std::to_string(d.H));
  return d;
}

/// Offset of (direction, batch row) in Y_h, Y_c, initial_h and initial_c.
int64_t stateRow(const LstmDims& d, int64_t dir, int64_t b) { return d.batchFirst ? b * d.D + dir : dir * d.B + b; }

void lstm(const Ctx& c) {
  const LstmDims d = lstmDims(c.n, c.input(0).shape, c.input(1).shape, c.input(2).shape);
  const int64_t G = 4 * d.H;
  if (c.has(4)) {
    const auto& lens = c.input(4);
    for (int64_t b = 0; b < lens.elements(); ++b)
      if (lens.data<int32_t>()[b] != d.S) throw Error("LSTM sequence_lens shorter than the sequence are not supported");
  }
  const float clip = static_cast<float>(c.n.getFloat("clip", 0.0));
  const bool inputForget = c.n.getInt("input_forget", 0) != 0;
  const std::string direction = c.n.getString("direction", "forward");
  const float* x = c.f(0);
  float* y = c.out.size() > 0 && c.out[0] ? c.fo(0) : nullptr;
  std::vector<float> proj(static_cast<size_t>(d.S * d.B * G)), gates(static_cast<size_t>(d.B * G));
  std::vector<float> h(static_cast<size_t>(d.B * d.H)), cell(h.size());
  for (int64_t dir = 0; dir < d.D; ++dir) {
    // X's rows are (t, b) or, batch first, (b, t): row t * B + b or b * S + t of the projection.
    // (matmulTransposedB accumulates into its output.)
    std::fill(proj.begin(), proj.end(), 0.f);
    matmulTransposedB(x, c.f(1) + dir * G * d.I, proj.data(), d.S * d.B, d.I, G);
    const float* R = c.f(2) + dir * G * d.H;
    const float* bias = c.has(3) ? c.f(3) + dir * 2 * G : nullptr;    // Wb then Rb
    const float* peep = c.has(7) ? c.f(7) + dir * 3 * d.H : nullptr;  // i, o, f
    for (int64_t b = 0; b < d.B; ++b)
      for (int64_t j = 0; j < d.H; ++j) {
        const int64_t at = stateRow(d, dir, b) * d.H + j;
        h[static_cast<size_t>(b * d.H + j)] = c.has(5) ? c.f(5)[at] : 0.f;
        cell[static_cast<size_t>(b * d.H + j)] = c.has(6) ? c.f(6)[at] : 0.f;
      }
    const bool reverse = direction == "reverse" || dir == 1;
    for (int64_t step = 0; step < d.S; ++step) {
      const int64_t t = reverse ? d.S - 1 - step : step;
      std::fill(gates.begin(), gates.end(), 0.f);
      matmulTransposedB(h.data(), R, gates.data(), d.B, d.H, G);
      for (int64_t b = 0; b < d.B; ++b) {
        float* a = gates.data() + b * G;
        const float* p = proj.data() + (d.batchFirst ? b * d.S + t : t * d.B + b) * G;
        for (int64_t k = 0; k < G; ++k) {
          a[k] += p[k] + (bias ? bias[k] + bias[G + k] : 0.f);
          if (clip > 0.f) a[k] = std::clamp(a[k], -clip, clip);
        }
        for (int64_t j = 0; j < d.H; ++j) {
          float& cj = cell[static_cast<size_t>(b * d.H + j)];
          const float in = sigmoid(a[j] + (peep ? peep[j] * cj : 0.f));
          const float forget = inputForget ? 1.f - in : sigmoid(a[2 * d.H + j] + (peep ? peep[2 * d.H + j] * cj : 0.f));
          cj = forget * cj + in * std::tanh(a[3 * d.H + j]);
          const float out = sigmoid(a[d.H + j] + (peep ? peep[d.H + j] * cj : 0.f));
          h[static_cast<size_t>(b * d.H + j)] = out * std::tanh(cj);
        }
        if (y) {
          const int64_t row = d.batchFirst ? (b * d.S + t) * d.D + dir : (t * d.D + dir) * d.B + b;
          std::copy_n(h.data() + b * d.H, d.H, y + row * d.H);
        }
      }
    }
    for (size_t k = 1; k < 3; ++k) {  // Y_h, Y_c
      if (k >= c.out.size() || !c.out[k]) continue;
      const std::vector<float>& state = k == 1 ? h : cell;
      for (int64_t b = 0; b < d.B; ++b) std::copy_n(state.data() + b * d.H, d.H, c.fo(k) + stateRow(d, dir, b) * d.H);
    }
  }
}

}  // namespace

}  // namespace systole::compiler::float_kernels

namespace systole::compiler {

namespace {

std::vector<OutputInfo> lstmShape(const ShapeCtx& c) {
  c.need(3);
  const auto d = float_kernels::lstmDims(c.n, c.x().shape, c.in[1].shape, c.in[2].shape);
  const std::vector<int64_t> y =
      d.batchFirst ? std::vector<int64_t>{d.B, d.S, d.D, d.H} : std::vector<int64_t>{d.S, d.D, d.B, d.H};
  const std::vector<int64_t> state =
      d.batchFirst ? std::vector<int64_t>{d.B, d.D, d.H} : std::vector<int64_t>{d.D, d.B, d.H};
  // The optional inputs, which the kernel indexes by these dimensions: B, sequence_lens,
  // initial_h, initial_c, P.
  const std::vector<std::pair<size_t, std::vector<int64_t>>> optional = {
      {3, {d.D, 8 * d.H}}, {4, {d.B}}, {5, state}, {6, state}, {7, {d.D, 3 * d.H}}};
  for (const auto& [k, shape] : optional)
    if (ops::present(c.in, k) && c.in[k].shape != shape)
      throw Error("LSTM input " + std::to_string(k) + " has shape " + ops::shapeText(c.in[k].shape) + ", expected " +
                  ops::shapeText(shape));
  if (ops::present(c.in, 4) && c.in[4].type != ElemType::Int32) throw Error("LSTM sequence_lens must be int32");
  std::vector<OutputInfo> out;
  for (size_t k = 0; k < c.n.outputs.size(); ++k) out.push_back({c.x().type, k == 0 ? y : state});
  return out;
}

/// Per step and direction, the input and recurrent products: S * D * B * 4H * (I + H).
int64_t lstmMacs(const Graph& g, const Node& n) {
  const auto& x = g.values[static_cast<size_t>(n.inputs[0])].shape;
  const auto& w = g.values[static_cast<size_t>(n.inputs[1])].shape;
  if (x.size() != 3 || w.size() != 3) return 0;
  return x[0] * x[1] * w[0] * w[1] * (w[2] + w[1] / 4);
}

}  // namespace

void defineRecurrentOps(OpTable& t) {
  t.floatKernels({{Op::LSTM, float_kernels::lstm}});
  t.shapes({{Op::LSTM, lstmShape}});
  t[Op::LSTM].macs = lstmMacs;
  t[Op::LSTM].min_inputs = 3;
  t.flag(kImported, {Op::LSTM});
}

}  // namespace systole::compiler
