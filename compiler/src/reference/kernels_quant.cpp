// Algorithm: one plain loop nest per operator of docs/quantized-ops.md, doing exactly the integer
// arithmetic written there through systole/isa/arith.h (widen, mul, add, requantize), so the
// wrap-around of the int32 accumulator and every rounding match the NPU. Conv widens x - z_x once
// per batch item, then accumulates one output plane at a time: for each (input channel, kh, kw)
// tap it adds (x - z_x) * w to the output positions whose input position lies inside x, so
// padding contributes nothing without a test in the inner loop. A node is quantized when it is
// QuantizeLinear, DequantizeLinear or Requant, or when its first input is int8; anything else
// returns false and runs as a float kernel.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "ops/op_def.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quant_math.h"
#include "systole/isa/arith.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {
namespace {

namespace arith = isa::arith;

struct PerTensor {
  float scale;
  int32_t zero_point;
};

const Value& valueOf(const Graph& g, int id) { return g.values.at(static_cast<size_t>(id)); }

PerTensor perTensorQuant(const Graph& g, int id) {
  const Value& v = valueOf(g, id);
  if (!v.quant || v.quant->scale.size() != 1 || v.quant->zero_point.size() != 1)
    throw Error("tensor '" + v.name + "' has no per-tensor quantization");
  return {v.quant->scale[0], v.quant->zero_point[0]};
}

void expectType(const HostTensor* t, ElemType type, const std::string& what) {
  if (t == nullptr) throw Error(what + " is missing");
  if (t->type != type)
    throw Error(what + " must be " + std::string(elemTypeName(type)) + ", not " + std::string(elemTypeName(t->type)));
}

/// An integer attribute given as one int or as a list.
std::vector<int64_t> intsAttr(const Node& n, const std::string& name) {
  if (!n.has(name)) throw Error("missing attribute '" + name + "'");
  if (auto* v = std::get_if<std::vector<int64_t>>(&n.attrs.at(name))) return *v;
  if (auto* i = std::get_if<int64_t>(&n.attrs.at(name))) return {*i};
  throw Error("attribute '" + name + "' must be an integer or integers");
}

int32_t intAttr(const Node& n, const std::string& name) {
  const std::vector<int64_t> v = intsAttr(n, name);
  if (v.size() != 1) throw Error("attribute '" + name + "' must be one integer");
  return static_cast<int32_t>(v[0]);
}

/// multiplier/shift, one per channel or one for all.
struct Requantizer {
  std::vector<int64_t> multiplier, shift;
  int32_t zero_point = 0, act_min = -128, act_max = 127;

  Requantizer(const Node& n, int64_t channels, int32_t zp, bool clamp) : zero_point(zp) {
    multiplier = intsAttr(n, "multiplier");
    shift = intsAttr(n, "shift");
    if (multiplier.size() != shift.size() ||
        (multiplier.size() != 1 && static_cast<int64_t>(multiplier.size()) != channels))
      throw Error("'multiplier' and 'shift' must have one entry or one per output channel");
    if (clamp) {
      act_min = intAttr(n, "act_min");
      act_max = intAttr(n, "act_max");
    }
  }
  int8_t operator()(int32_t acc, int64_t channel) const {
    const size_t i = multiplier.size() == 1 ? 0 : static_cast<size_t>(channel);
    return arith::requantize(acc, static_cast<int32_t>(multiplier[i]), static_cast<int32_t>(shift[i]), zero_point,
                             act_min, act_max);
  }
};

// ---- host boundary ----

/// Index of the quantization parameter that element `i` of a tensor of `shape` uses.
struct ChannelOf {
  int64_t inner = 1, channels = 1;
  bool perAxis = false;
  ChannelOf(const Quant& q, const std::vector<int64_t>& shape) {
    if (q.axis < 0) {
      if (q.scale.size() != 1 || q.zero_point.size() != 1) throw Error("per-tensor quantization needs one scale");
      return;
    }
    if (q.axis >= static_cast<int>(shape.size())) throw Error("quantization axis out of range");
    perAxis = true;
    channels = shape[static_cast<size_t>(q.axis)];
    for (size_t d = static_cast<size_t>(q.axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    if (static_cast<int64_t>(q.scale.size()) != channels || static_cast<int64_t>(q.zero_point.size()) != channels)
      throw Error("per-axis quantization needs one scale and zero point per channel");
  }
  size_t operator()(int64_t i) const { return perAxis ? static_cast<size_t>((i / inner) % channels) : 0; }
};

void quantizeLinear(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Float32, "QuantizeLinear input");
  const Value& yv = valueOf(g, n.outputs.at(0));
  if (!yv.quant) throw Error("output '" + yv.name + "' has no quantization");
  const Quant& q = *yv.quant;
  const ChannelOf ch(q, y.shape);
  const float* x = in[0]->data<float>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i) out[i] = quantizeFloat(x[i], q.scale[ch(i)], q.zero_point[ch(i)]);
}

void dequantizeLinear(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "DequantizeLinear input");
  const Value& xv = valueOf(g, n.inputs.at(0));
  if (!xv.quant) throw Error("input '" + xv.name + "' has no quantization");
  const Quant& q = *xv.quant;
  const ChannelOf ch(q, in[0]->shape);
  const int8_t* x = in[0]->data<int8_t>();
  float* out = y.data<float>();
  for (int64_t i = 0; i < y.elements(); ++i)
    out[i] = q.scale[ch(i)] * static_cast<float>(int32_t{x[i]} - q.zero_point[ch(i)]);
}

// ---- matrix operators ----

void conv(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  const HostTensor* x = in.at(0);
  const HostTensor* w = in.size() > 1 ? in[1] : nullptr;
  const HostTensor* b = in.size() > 2 ? in[2] : nullptr;
  expectType(x, ElemType::Int8, "Conv input");
  expectType(w, ElemType::Int8, "Conv weight");
  if (b) expectType(b, ElemType::Int32, "Conv bias");
  if (w->shape.size() != x->shape.size()) throw Error("Conv weight rank differs from the input rank");
  const int64_t batch = x->shape[0], inC = x->shape[1], outC = w->shape[0], icg = w->shape[1];
  const int64_t groups = n.getInt("group", 1);
  if (groups < 1 || inC != icg * groups || outC % groups != 0 || y.shape[1] != outC)
    throw Error("Conv channels do not match 'group'");
  if (b && b->elements() != outC) throw Error("Conv bias must have one value per output channel");
  const Window2d win = windowOf(n, x->shape, y.shape, {w->shape.begin() + 2, w->shape.end()});
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, outC, perTensorQuant(g, n.outputs.at(0)).zero_point, true);

  const int64_t ocg = outC / groups, inPlane = win.in_h * win.in_w, outPlane = win.out_h * win.out_w;
  const int8_t* xd = x->data<int8_t>();
  const int8_t* wd = w->data<int8_t>();
  int8_t* yd = y.data<int8_t>();
  // The output positions o in [0, outSize) whose input position o*stride + off lies in [0, inSize).
  auto validRange = [](int64_t off, int64_t stride, int64_t inSize, int64_t outSize) {
    const int64_t lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
    const int64_t last = inSize - 1 - off;
    const int64_t hi = last < 0 ? 0 : std::min(outSize, last / stride + 1);
    return std::pair<int64_t, int64_t>{lo, std::max(lo, hi)};
  };
  std::vector<int32_t> acc(static_cast<size_t>(outPlane));
  std::vector<int32_t> centred(static_cast<size_t>(inC * inPlane));  // x - z_x of one batch item
  for (int64_t bn = 0; bn < batch; ++bn) {
    for (int64_t i = 0; i < inC * inPlane; ++i)
      centred[static_cast<size_t>(i)] = arith::widen(xd[bn * inC * inPlane + i], zx, 1);
    for (int64_t oc = 0; oc < outC; ++oc) {
      std::fill(acc.begin(), acc.end(), b ? b->data<int32_t>()[oc] : 0);
      const int64_t group = oc / ocg;
      for (int64_t c = 0; c < icg; ++c) {
        const int32_t* plane = centred.data() + (group * icg + c) * inPlane;
        for (int64_t kh = 0; kh < win.k_h; ++kh) {
          const int64_t offH = kh * win.dil_h - win.pad_top;
          const auto [ohLo, ohHi] = validRange(offH, win.stride_h, win.in_h, win.out_h);
          for (int64_t kw = 0; kw < win.k_w; ++kw) {
            const int32_t wv = wd[((oc * icg + c) * win.k_h + kh) * win.k_w + kw];
            if (wv == 0) continue;  // (x - z) * 0 adds nothing
            const int64_t offW = kw * win.dil_w - win.pad_left;
            const auto [owLo, owHi] = validRange(offW, win.stride_w, win.in_w, win.out_w);
            for (int64_t oh = ohLo; oh < ohHi; ++oh) {
              const int64_t base = (oh * win.stride_h + offH) * win.in_w + offW;  // input index of ow = 0
              int32_t* accRow = acc.data() + oh * win.out_w;
              if (win.stride_w == 1)
                for (int64_t ow = owLo; ow < owHi; ++ow)
                  accRow[ow] = arith::add(accRow[ow], arith::mul(plane[base + ow], wv));
              else
                for (int64_t ow = owLo; ow < owHi; ++ow)
                  accRow[ow] = arith::add(accRow[ow], arith::mul(plane[base + ow * win.stride_w], wv));
            }
          }
        }
      }
      int8_t* outPlanePtr = yd + (bn * outC + oc) * outPlane;
      for (int64_t i = 0; i < outPlane; ++i) outPlanePtr[i] = rq(acc[static_cast<size_t>(i)], oc);
    }
  }
}

/// Gemm and MatMul with a constant right operand: a [..., K] x w [K, N] + b [N].
void matmul(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  const HostTensor* a = in.at(0);
  const HostTensor* w = in.size() > 1 ? in[1] : nullptr;
  const HostTensor* b = in.size() > 2 ? in[2] : nullptr;
  expectType(a, ElemType::Int8, n.op + " input");
  expectType(w, ElemType::Int8, n.op + " weight");
  if (b) expectType(b, ElemType::Int32, n.op + " bias");
  if (n.getInt("transA", 0) != 0 || n.getInt("transB", 0) != 0)
    throw Error("a quantized " + n.op + " takes its weight as [K][N] (transposes are folded in)");
  if (w->shape.size() != 2 || a->shape.empty()) throw Error("the weight must be [K][N]");
  const int64_t K = w->shape[0], N = w->shape[1];
  if (a->shape.back() != K) throw Error("inner dimensions differ");
  const int64_t M = a->elements() / K;
  if (y.elements() != M * N) throw Error("output shape does not match [M][N]");
  if (b && b->elements() != N) throw Error("bias must have N values");
  const int32_t za = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, N, perTensorQuant(g, n.outputs.at(0)).zero_point, true);
  const int8_t* ad = a->data<int8_t>();
  const int8_t* wd = w->data<int8_t>();
  int8_t* yd = y.data<int8_t>();
  std::vector<int32_t> acc(static_cast<size_t>(N));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t j = 0; j < N; ++j) acc[static_cast<size_t>(j)] = b ? b->data<int32_t>()[j] : 0;
    for (int64_t k = 0; k < K; ++k) {
      const int32_t av = arith::widen(ad[m * K + k], za, 1);
      if (av == 0) continue;
      const int8_t* wRow = wd + k * N;
      for (int64_t j = 0; j < N; ++j)
        acc[static_cast<size_t>(j)] = arith::add(acc[static_cast<size_t>(j)], arith::mul(av, wRow[j]));
    }
    for (int64_t j = 0; j < N; ++j) yd[m * N + j] = rq(acc[static_cast<size_t>(j)], j);
  }
}

// ---- element-wise ----

void add(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "Add input A");
  expectType(in.size() > 1 ? in[1] : nullptr, ElemType::Int8, "Add input B");
  if (in[0]->shape != y.shape || in[1]->shape != y.shape) throw Error("a quantized Add needs equal shapes");
  const int32_t za = perTensorQuant(g, n.inputs[0]).zero_point, zb = perTensorQuant(g, n.inputs[1]).zero_point;
  const int32_t ma = intAttr(n, "a_multiplier"), mb = intAttr(n, "b_multiplier");
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, true);
  const int8_t* a = in[0]->data<int8_t>();
  const int8_t* b = in[1]->data<int8_t>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i)
    out[i] = rq(arith::add(arith::widen(a[i], za, ma), arith::widen(b[i], zb, mb)), 0);
}

void clamp(const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y, int32_t lo, int32_t hi) {
  expectType(in.at(0), ElemType::Int8, n.op + " input");
  const int8_t* x = in[0]->data<int8_t>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i)
    out[i] = static_cast<int8_t>(std::min<int32_t>(std::max<int32_t>(x[i], lo), hi));
}

/// Requant: one multiplier, or one per channel of a 4-D [N, C, H, W] tensor.
void requant(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "Requant input");
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const auto& shape = in[0]->shape;
  const int64_t channels = shape.size() == 4 ? shape[1] : 1, pixels = shape.size() == 4 ? shape[2] * shape[3] : 1;
  const Requantizer rq(n, channels, perTensorQuant(g, n.outputs.at(0)).zero_point, false);
  const int8_t* x = in[0]->data<int8_t>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i) out[i] = rq(arith::widen(x[i], zx, 1), (i / pixels) % channels);
}

// ---- pooling ----

std::vector<int64_t> kernelShape(const Node& n, size_t rank) {
  std::vector<int64_t> k = n.getInts("kernel_shape");
  if (k.size() + 2 != rank) throw Error("'kernel_shape' must give every spatial dimension");
  return k;
}

/// Calls visit(inputIndex) for every window position of output (oh, ow) that lies inside x.
template <typename Visit>
void forWindow(const Window2d& w, int64_t oh, int64_t ow, Visit&& visit) {
  for (int64_t kh = 0; kh < w.k_h; ++kh) {
    const int64_t ih = oh * w.stride_h + kh * w.dil_h - w.pad_top;
    if (ih < 0 || ih >= w.in_h) continue;
    for (int64_t kw = 0; kw < w.k_w; ++kw) {
      const int64_t iw = ow * w.stride_w + kw * w.dil_w - w.pad_left;
      if (iw < 0 || iw >= w.in_w) continue;
      visit(ih * w.in_w + iw);
    }
  }
}

void pool(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y, bool isMax) {
  expectType(in.at(0), ElemType::Int8, n.op + " input");
  const HostTensor& x = *in[0];
  const Window2d w = windowOf(n, x.shape, y.shape, kernelShape(n, x.shape.size()));
  const int64_t planes = x.shape[0] * x.shape[1];
  if (y.shape[0] != x.shape[0] || y.shape[1] != x.shape[1]) throw Error("pooling keeps N and C");
  const int8_t* xd = x.data<int8_t>();
  int8_t* yd = y.data<int8_t>();
  if (isMax) {
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t oh = 0; oh < w.out_h; ++oh)
        for (int64_t ow = 0; ow < w.out_w; ++ow) {
          int8_t m = -128;
          forWindow(w, oh, ow, [&](int64_t i) { m = std::max(m, xd[p * w.in_h * w.in_w + i]); });
          yd[(p * w.out_h + oh) * w.out_w + ow] = m;
        }
    return;
  }
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, false);
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < w.out_h; ++oh)
      for (int64_t ow = 0; ow < w.out_w; ++ow) {
        int32_t acc = 0;
        forWindow(w, oh, ow,
                  [&](int64_t i) { acc = arith::add(acc, arith::widen(xd[p * w.in_h * w.in_w + i], zx, 1)); });
        yd[(p * w.out_h + oh) * w.out_w + ow] = rq(acc, 0);
      }
}

void globalAveragePool(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "GlobalAveragePool input");
  const HostTensor& x = *in[0];
  if (x.shape.size() < 3) throw Error("GlobalAveragePool needs N C and spatial dimensions");
  const int64_t planes = x.shape[0] * x.shape[1];
  const int64_t size = x.elements() / std::max<int64_t>(planes, 1);
  if (y.elements() != planes) throw Error("GlobalAveragePool output must be N x C x 1...");
  const int32_t zx = perTensorQuant(g, n.inputs[0]).zero_point;
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, false);
  const int8_t* xd = x.data<int8_t>();
  for (int64_t p = 0; p < planes; ++p) {
    int32_t acc = 0;
    for (int64_t i = 0; i < size; ++i) acc = arith::add(acc, arith::widen(xd[p * size + i], zx, 1));
    y.data<int8_t>()[p] = rq(acc, 0);
  }
}

// ---- data movement ----

/// Max or Min of two int8 tensors of one shape and one quantization (the quantizer gives them the
/// output's): the int8 values compare as the real ones do.
void extremum(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y, bool isMax) {
  if (in.size() != 2) throw Error("expects two inputs");
  expectType(in[0], ElemType::Int8, "input");
  expectType(in[1], ElemType::Int8, "input");
  if (in[0]->shape != y.shape || in[1]->shape != y.shape) throw Error("int8 inputs must have the output's shape");
  const std::optional<Quant>& qy = g.values[static_cast<size_t>(n.outputs.at(0))].quant;
  for (int v : n.inputs)
    if (!qy || g.values[static_cast<size_t>(v)].quant != qy)
      throw Error("int8 inputs must have the output's quantization");
  const int8_t *a = in[0]->data<int8_t>(), *b = in[1]->data<int8_t>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i) out[i] = isMax ? std::max(a[i], b[i]) : std::min(a[i], b[i]);
}

void concat(const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  const int64_t rank = static_cast<int64_t>(y.shape.size());
  int64_t axis = n.getInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw Error("'axis' out of range");
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= y.shape[static_cast<size_t>(d)];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= y.shape[static_cast<size_t>(d)];
  int64_t offset = 0;
  const int64_t rowOut = y.shape[static_cast<size_t>(axis)] * inner;
  for (const HostTensor* t : in) {
    expectType(t, ElemType::Int8, "Concat input");
    if (static_cast<int64_t>(t->shape.size()) != rank) throw Error("Concat inputs must have the output's rank");
    const int64_t rowIn = t->shape[static_cast<size_t>(axis)] * inner;
    if (offset + rowIn > rowOut || t->elements() != outer * rowIn)
      throw Error("Concat input shapes do not fit the output");
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(y.data<int8_t>() + o * rowOut + offset, t->data<int8_t>() + o * rowIn, static_cast<size_t>(rowIn));
    offset += rowIn;
  }
  if (offset != rowOut) throw Error("Concat inputs do not fill the output");
}

/// Systole's table op: y = table[x + 128] (any int8 -> int8 function of one input).
void lut(const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "Lut input");
  const std::vector<int64_t> table = intsAttr(n, "table");
  if (table.size() != 256) throw Error("a Lut's 'table' has 256 entries");
  const int8_t* x = in[0]->data<int8_t>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i) out[i] = static_cast<int8_t>(table[static_cast<size_t>(x[i] + 128)]);
}

/// y = requantize(widen(a, z_a, 1) * widen(b, z_b, 1)); b has a's shape, or [N, C, 1, 1] against
/// a's [N, C, H, W] (one value per image and channel, broadcast over the pixels).
void mul(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectType(in.at(0), ElemType::Int8, "Mul input A");
  expectType(in.size() > 1 ? in[1] : nullptr, ElemType::Int8, "Mul input B");
  const auto& as = in[0]->shape;
  const auto& bs = in[1]->shape;
  const bool perChannel = bs != as;
  if (as != y.shape || (perChannel && (as.size() != 4 || bs != std::vector<int64_t>{as[0], as[1], 1, 1})))
    throw Error("a quantized Mul needs equal shapes or a [N, C, 1, 1] second input");
  const int64_t pixels = perChannel ? as[2] * as[3] : 1;
  const int32_t za = perTensorQuant(g, n.inputs[0]).zero_point, zb = perTensorQuant(g, n.inputs[1]).zero_point;
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, true);
  const int8_t* a = in[0]->data<int8_t>();
  const int8_t* b = in[1]->data<int8_t>();
  int8_t* out = y.data<int8_t>();
  for (int64_t i = 0; i < y.elements(); ++i)
    out[i] = rq(arith::mul(arith::widen(a[i], za, 1), arith::widen(b[i / pixels], zb, 1)), 0);
}

bool isQuantizedNode(const Graph& g, const Node& n) {
  if (n.op == Op::QuantizeLinear || n.op == Op::DequantizeLinear || n.op == Op::Requant) return true;
  if (opDef(n).has(kTypeGenericMove)) return false;  // pure data movement: the float kernels run it on any type
  return !n.inputs.empty() && n.inputs[0] >= 0 && valueOf(g, n.inputs[0]).type == ElemType::Int8;
}

}  // namespace

bool runQuantizedKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in,
                        std::vector<HostTensor*>& out) {
  if (!isQuantizedNode(g, n)) return false;
  if (out.size() != 1 || out[0] == nullptr) throw Error("a quantized operator has exactly one output");
  HostTensor& y = *out[0];
  const ElemType want = n.op == Op::DequantizeLinear ? ElemType::Float32 : ElemType::Int8;
  if (y.type != want) throw Error("output must be " + std::string(elemTypeName(want)));
  const OpType& op = n.op;
  if (op == Op::QuantizeLinear)
    quantizeLinear(g, n, in, y);
  else if (op == Op::DequantizeLinear)
    dequantizeLinear(g, n, in, y);
  else if (op == Op::Requant)
    requant(g, n, in, y);
  else if (op == Op::Conv)
    conv(g, n, in, y);
  else if (op == Op::Gemm || op == Op::MatMul)
    matmul(g, n, in, y);
  else if (op == Op::Add)
    add(g, n, in, y);
  else if (op == Op::Mul)
    mul(g, n, in, y);
  else if (op == Op::Lut)
    lut(n, in, y);
  else if (op == Op::MaxPool)
    pool(g, n, in, y, true);
  else if (op == Op::AveragePool)
    pool(g, n, in, y, false);
  else if (op == Op::GlobalAveragePool)
    globalAveragePool(g, n, in, y);
  else if (op == Op::Relu) {
    const int32_t z = perTensorQuant(g, n.inputs[0]).zero_point;
    clamp(n, in, y, n.has("act_min") ? intAttr(n, "act_min") : z, n.has("act_max") ? intAttr(n, "act_max") : 127);
  } else if (op == Op::Clip)
    clamp(n, in, y, intAttr(n, "act_min"), intAttr(n, "act_max"));
  else if (op == Op::Concat)
    concat(n, in, y);
  else if (op == Op::Max || op == Op::Min)
    extremum(g, n, in, y, op == Op::Max);
  else
    throw Error("no quantized kernel for an int8 '" + op + "'");
  return true;
}

}  // namespace systole::compiler
