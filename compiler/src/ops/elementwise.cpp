// Element-wise float kernels with numpy broadcasting: arithmetic (also on int64/int32, for the
// shape computations torch exports), activations, comparisons, logic and Where.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "ops/int8_kernel.h"
#include "ops/op_def.h"
#include "systole/isa/arith.h"

namespace systole::compiler::float_kernels {

namespace {

template <typename T, typename Op>
void binaryTyped(const Ctx& c, Op op) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  auto& y = c.output();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* py = y.data<T>();
  if (a.shape == y.shape && b.shape == y.shape) {
    const int64_t n = y.elements();
    for (int64_t i = 0; i < n; ++i) py[i] = op(pa[i], pb[i]);
    return;
  }
  if (a.shape == y.shape && b.elements() == 1) {
    const int64_t n = y.elements();
    const T s = pb[0];
    for (int64_t i = 0; i < n; ++i) py[i] = op(pa[i], s);
    return;
  }
  forEachBroadcast(y.shape, {a.shape, b.shape},
                   [&](int64_t o, const std::vector<int64_t>& off) { py[o] = op(pa[off[0]], pb[off[1]]); });
}

template <typename Op>
void binary(const Ctx& c, Op op) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  if (a.type != b.type || c.output().type != a.type) throw Error("operands have different element types");
  switch (a.type) {
    case ElemType::Float32: binaryTyped<float>(c, op); break;
    case ElemType::Int64: binaryTyped<int64_t>(c, op); break;
    case ElemType::Int32: binaryTyped<int32_t>(c, op); break;
    default: throw Error("arithmetic on " + std::string(elemTypeName(a.type)) + " is not supported");
  }
}

template <typename Op>
void unary(const Ctx& c, Op op) {
  const float* x = c.f(0);
  float* y = c.fo();
  const int64_t n = c.output().elements();
  for (int64_t i = 0; i < n; ++i) y[i] = op(x[i]);
}

void variadic(const Ctx& c, const std::function<float(float, float)>& op) {
  auto& y = c.output();
  float* py = c.fo();
  bool first = true;
  for (size_t k = 0; k < c.in.size(); ++k) {
    if (!c.has(k)) continue;
    const auto& t = Ctx::requireFloat(c.input(k));
    const float* p = t.data<float>();
    forEachBroadcast(y.shape, {t.shape}, [&](int64_t o, const std::vector<int64_t>& off) {
      py[o] = first ? p[off[0]] : op(py[o], p[off[0]]);
    });
    first = false;
  }
}

/// A comparison of two numbers of one type into a Bool tensor, with broadcasting.
template <typename Op>
void compare(const Ctx& c, Op op) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  if (a.type != b.type) throw Error("operands have different element types");
  uint8_t* y = c.output().data<uint8_t>();
  auto run = [&](auto* pa, auto* pb) {
    forEachBroadcast(c.output().shape, {a.shape, b.shape},
                     [&](int64_t o, const std::vector<int64_t>& off) { y[o] = op(pa[off[0]], pb[off[1]]); });
  };
  switch (a.type) {
    case ElemType::Float32: run(a.data<float>(), b.data<float>()); break;
    case ElemType::Int64: run(a.data<int64_t>(), b.data<int64_t>()); break;
    case ElemType::Int32: run(a.data<int32_t>(), b.data<int32_t>()); break;
    case ElemType::Int8: run(a.data<int8_t>(), b.data<int8_t>()); break;
    case ElemType::Int16: run(a.data<int16_t>(), b.data<int16_t>()); break;
    case ElemType::Bool: run(a.data<uint8_t>(), b.data<uint8_t>()); break;
  }
}

/// Not, and And/Or/Xor of Bool tensors (`op` of one or two bytes).
template <typename Op>
void logic(const Ctx& c, Op op) {
  for (size_t k = 0; k < c.in.size(); ++k)
    if (c.input(k).type != ElemType::Bool) throw Error("a logical operator takes bool tensors");
  uint8_t* y = c.output().data<uint8_t>();
  const uint8_t* a = c.input(0).data<uint8_t>();
  if (c.in.size() == 1) {
    for (int64_t i = 0; i < c.output().elements(); ++i) y[i] = op(a[i], uint8_t{0});
    return;
  }
  const uint8_t* b = c.input(1).data<uint8_t>();
  forEachBroadcast(c.output().shape, {c.input(0).shape, c.input(1).shape},
                   [&](int64_t o, const std::vector<int64_t>& off) { y[o] = op(a[off[0]], b[off[1]]); });
}

/// Where(condition, X, Y): X where the condition holds, else Y, with broadcasting; any element type.
void where(const Ctx& c) {
  const auto& cond = c.input(0);
  const auto& X = c.input(1);
  const auto& Y = c.input(2);
  auto& out = c.output();
  if (cond.type != ElemType::Bool || X.type != Y.type || out.type != X.type)
    throw Error("Where takes a bool condition and two tensors of one type");
  const size_t eb = static_cast<size_t>(elemTypeBytes(X.type));
  forEachBroadcast(out.shape, {cond.shape, X.shape, Y.shape}, [&](int64_t o, const std::vector<int64_t>& off) {
    const bool pick = cond.data<uint8_t>()[off[0]] != 0;
    const uint8_t* src =
        pick ? X.bytes.data() + static_cast<size_t>(off[1]) * eb : Y.bytes.data() + static_cast<size_t>(off[2]) * eb;
    std::memcpy(out.bytes.data() + static_cast<size_t>(o) * eb, src, eb);
  });
}

float erfGelu(float x) { return 0.5f * x * (1.f + std::erf(x * static_cast<float>(1.0 / std::numbers::sqrt2))); }
float tanhGelu(float x) {
  const float k = static_cast<float>(std::sqrt(2.0 / std::numbers::pi));
  return 0.5f * x * (1.f + std::tanh(k * (x + 0.044715f * x * x * x)));
}

}  // namespace

void applyActivation(const Node& n, float* y, int64_t count) {
  const std::string act = n.getString("activation", "");
  if (act.empty()) return;
  if (act == "relu") {
    for (int64_t i = 0; i < count; ++i) y[i] = std::max(y[i], 0.f);
  } else if (act == "clip") {
    const float lo = static_cast<float>(n.getFloat("clip_min", std::numeric_limits<float>::lowest()));
    const float hi = static_cast<float>(n.getFloat("clip_max", std::numeric_limits<float>::max()));
    for (int64_t i = 0; i < count; ++i) y[i] = std::min(std::max(y[i], lo), hi);
  } else {
    throw Error("unknown fused activation '" + act + "'");
  }
}

}  // namespace systole::compiler::float_kernels

// ---- int8 kernels (docs/quantized-ops.md: Add, Mul, Relu, Clip, Max, Min) ----

namespace systole::compiler::int8_kernels {

namespace {

/// out[i] = f(a, b, i) over the lanes of two inputs (typed pointers), at the output's width: the
/// loop of Add and Mul.
template <typename Fn>
void twoInputLanes(const std::vector<const HostTensor*>& in, HostTensor& y, Fn&& f) {
  forLanes(y.type, [&]<typename Lane>() {
    const Lane* a = in[0]->data<Lane>();
    const Lane* b = in[1]->data<Lane>();
    Lane* out = y.data<Lane>();
    for (int64_t i = 0; i < y.elements(); ++i) out[i] = static_cast<Lane>(f(a, b, i));
  });
}

void add(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectActivation(in.at(0), "Add input A", &y);
  expectActivation(in.size() > 1 ? in[1] : nullptr, "Add input B", &y);
  if (in[0]->shape != y.shape || in[1]->shape != y.shape) throw Error("a quantized Add needs equal shapes");
  const int32_t za = perTensorQuant(g, n.inputs[0]).zero_point, zb = perTensorQuant(g, n.inputs[1]).zero_point;
  const int32_t ma = intAttr(n, "a_multiplier"), mb = intAttr(n, "b_multiplier");
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, true, activationBits(y.type));
  twoInputLanes(in, y, [&](const auto* a, const auto* b, int64_t i) {
    return rq(arith::add(arith::widen(a[i], za, ma), arith::widen(b[i], zb, mb)), 0);
  });
}

/// y = requantize(widen(a, z_a, 1) * widen(b, z_b, 1)); b has a's shape, or [N, C, 1, 1] against
/// a's [N, C, H, W] (one value per image and channel, broadcast over the pixels).
void mul(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  expectActivation(in.at(0), "Mul input A", &y);
  expectActivation(in.size() > 1 ? in[1] : nullptr, "Mul input B", &y);
  const auto& as = in[0]->shape;
  const auto& bs = in[1]->shape;
  const bool perChannel = bs != as;
  if (as != y.shape || (perChannel && (as.size() != 4 || bs != std::vector<int64_t>{as[0], as[1], 1, 1})))
    throw Error("a quantized Mul needs equal shapes or a [N, C, 1, 1] second input");
  const int64_t pixels = perChannel ? as[2] * as[3] : 1;
  const int32_t za = perTensorQuant(g, n.inputs[0]).zero_point, zb = perTensorQuant(g, n.inputs[1]).zero_point;
  const Requantizer rq(n, 1, perTensorQuant(g, n.outputs.at(0)).zero_point, true, activationBits(y.type));
  twoInputLanes(in, y, [&](const auto* a, const auto* b, int64_t i) {
    return rq(arith::mul(arith::widen(a[i], za, 1), arith::widen(b[i / pixels], zb, 1)), 0);
  });
}

void clamp(const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y, int32_t lo, int32_t hi) {
  expectActivation(in.at(0), n.op + " input", &y);
  forLanes(y.type, [&]<typename Lane>() {
    const Lane* x = in[0]->data<Lane>();
    Lane* out = y.data<Lane>();
    for (int64_t i = 0; i < y.elements(); ++i)
      out[i] = static_cast<Lane>(std::min<int32_t>(std::max<int32_t>(x[i], lo), hi));
  });
}

/// Max or Min of two int8 tensors of one shape and one quantization (the quantizer gives them the
/// output's): the int8 values compare as the real ones do.
void extremum(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y, bool isMax) {
  if (in.size() != 2) throw Error("expects two inputs");
  expectActivation(in[0], "input", &y);
  expectActivation(in[1], "input", &y);
  if (in[0]->shape != y.shape || in[1]->shape != y.shape) throw Error("int8 inputs must have the output's shape");
  const std::optional<Quant>& qy = g.values[static_cast<size_t>(n.outputs.at(0))].quant;
  for (int v : n.inputs)
    if (!qy || g.values[static_cast<size_t>(v)].quant != qy)
      throw Error("int8 inputs must have the output's quantization");
  forLanes(y.type, [&]<typename Lane>() {
    const Lane *a = in[0]->data<Lane>(), *b = in[1]->data<Lane>();
    Lane* out = y.data<Lane>();
    for (int64_t i = 0; i < y.elements(); ++i) out[i] = isMax ? std::max(a[i], b[i]) : std::min(a[i], b[i]);
  });
}

void maximum(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  extremum(g, n, in, y, true);
}

void minimum(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  extremum(g, n, in, y, false);
}

/// Relu (unfused): the clamp to [act_min, act_max], by default [z, the lane's max].
void relu(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  const int32_t z = perTensorQuant(g, n.inputs[0]).zero_point;
  clamp(n, in, y, n.has("act_min") ? intAttr(n, "act_min") : z,
        n.has("act_max") ? intAttr(n, "act_max") : arith::activationMax(activationBits(y.type)));
}

void clip(const Graph&, const Node& n, const std::vector<const HostTensor*>& in, HostTensor& y) {
  clamp(n, in, y, intAttr(n, "act_min"), intAttr(n, "act_max"));
}

}  // namespace

}  // namespace systole::compiler::int8_kernels

namespace systole::compiler {

namespace {

// ---- shapes ----

std::vector<OutputInfo> sameShape(const ShapeCtx& c) { return c.same(c.x().shape); }

/// Numpy broadcasting of every present input (Max and Min take one or more).
std::vector<OutputInfo> broadcastShape(const ShapeCtx& c) {
  std::vector<int64_t> shape = c.x().shape;
  for (size_t k = 1; k < c.in.size(); ++k)
    if (c.in[k].present) shape = ops::broadcast(shape, c.in[k].shape);
  return c.same(shape);
}

std::vector<OutputInfo> binaryShape(const ShapeCtx& c) {
  c.need(2);
  return broadcastShape(c);
}

std::vector<OutputInfo> predicateShape(const ShapeCtx& c) {
  c.need(2);
  return {OutputInfo{ElemType::Bool, ops::broadcast(c.x().shape, c.in[1].shape)}};
}

std::vector<OutputInfo> notShape(const ShapeCtx& c) { return {OutputInfo{ElemType::Bool, c.x().shape}}; }

std::vector<OutputInfo> whereShape(const ShapeCtx& c) {
  c.need(3);
  return {OutputInfo{c.in[1].type, ops::broadcast(ops::broadcast(c.x().shape, c.in[1].shape), c.in[2].shape)}};
}

/// Comparisons, logic and Where (torch's dynamic-shape exports; folded when constant).
void definePredicateOps(OpTable& t) {
  using namespace float_kernels;
  t.floatKernels({
      {Op::Equal, [](const Ctx& c) { compare(c, [](auto a, auto b) { return a == b; }); }},
      {Op::Less, [](const Ctx& c) { compare(c, [](auto a, auto b) { return a < b; }); }},
      {Op::LessOrEqual, [](const Ctx& c) { compare(c, [](auto a, auto b) { return a <= b; }); }},
      {Op::Greater, [](const Ctx& c) { compare(c, [](auto a, auto b) { return a > b; }); }},
      {Op::GreaterOrEqual, [](const Ctx& c) { compare(c, [](auto a, auto b) { return a >= b; }); }},
      {Op::Not, [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t) -> uint8_t { return !a; }); }},
      {Op::And, [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t b) -> uint8_t { return a && b; }); }},
      {Op::Or, [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t b) -> uint8_t { return a || b; }); }},
      {Op::Xor, [](const Ctx& c) { logic(c, [](uint8_t a, uint8_t b) -> uint8_t { return (a != 0) != (b != 0); }); }},
      {Op::Where, where},
  });
  t.shapes({
      {Op::Equal, predicateShape},
      {Op::Less, predicateShape},
      {Op::LessOrEqual, predicateShape},
      {Op::Greater, predicateShape},
      {Op::GreaterOrEqual, predicateShape},
      {Op::And, predicateShape},
      {Op::Or, predicateShape},
      {Op::Xor, predicateShape},
      {Op::Not, notShape},
      {Op::Where, whereShape},
  });
  t.flag(kImported, {Op::And, Op::Equal, Op::Greater, Op::GreaterOrEqual, Op::Less, Op::LessOrEqual, Op::Not, Op::Or,
                     Op::Where, Op::Xor});
}

/// Add, Sub, Mul, Div, Pow (two inputs, broadcasting), Max and Min (one or more).
void defineArithmeticOps(OpTable& t) {
  using namespace float_kernels;
  t.floatKernels({
      {Op::Add,
       [](const Ctx& c) {
         binary(c, [](auto a, auto b) { return a + b; });
         if (c.output().type == ElemType::Float32) applyActivation(c.n, c.fo(), c.output().elements());
       }},
      {Op::Sub, [](const Ctx& c) { binary(c, [](auto a, auto b) { return a - b; }); }},
      {Op::Mul, [](const Ctx& c) { binary(c, [](auto a, auto b) { return a * b; }); }},
      {Op::Div,
       [](const Ctx& c) {
         binary(c, [](auto a, auto b) {
           if constexpr (std::is_integral_v<decltype(a)>) {
             if (b == 0) throw Error("integer division by zero");
           }
           return a / b;
         });
       }},
      {Op::Pow,
       [](const Ctx& c) {
         if (c.input(1).type != ElemType::Float32) throw Error("Pow exponent must be float32");
         binary(c, [](auto a, auto b) { return static_cast<decltype(a)>(std::pow(a, b)); });
       }},
      {Op::Max, [](const Ctx& c) { variadic(c, [](float a, float b) { return std::max(a, b); }); }},
      {Op::Min, [](const Ctx& c) { variadic(c, [](float a, float b) { return std::min(a, b); }); }},
  });
  t.shapes({
      {Op::Add, binaryShape},
      {Op::Sub, binaryShape},
      {Op::Mul, binaryShape},
      {Op::Div, binaryShape},
      {Op::Pow, binaryShape},
      {Op::Max, broadcastShape},
      {Op::Min, broadcastShape},
  });
  t.flag(kImported, {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Pow, Op::Max, Op::Min});
  t.int8Form(Int8Form::Add, {Op::Add, Op::Sub});
  t.int8Form(Int8Form::Mul, {Op::Mul});
  t.int8Form(Int8Form::Scale, {Op::Div});
  t.int8Form(Int8Form::Extremum, {Op::Max, Op::Min});
  t.int8Kernels({
      {Op::Add, int8_kernels::add},
      {Op::Mul, int8_kernels::mul},
      {Op::Max, int8_kernels::maximum},
      {Op::Min, int8_kernels::minimum},
  });
}

/// Functions of one input (and PRelu's slope): Relu, Clip and the ones that become a Lut on int8.
void defineActivationOps(OpTable& t) {
  using namespace float_kernels;
  t.floatKernels({
      {Op::Relu, [](const Ctx& c) { unary(c, [](float x) { return std::max(x, 0.f); }); }},
      {Op::Clip,
       [](const Ctx& c) {
         const auto [lo, hi] = ops::clipBounds(c.n, c.g.opset, c.operands);
         unary(c, [lo = lo, hi = hi](float x) { return std::min(std::max(x, lo), hi); });
       }},
      {Op::PRelu,
       [](const Ctx& c) {  // the slope broadcasts to X (unidirectionally), so Y has X's shape
         if (c.input(0).type != ElemType::Float32) throw Error("PRelu takes float32");
         binary(c, [](auto x, auto slope) { return x >= 0 ? x : slope * x; });
       }},
      {Op::LeakyRelu,
       [](const Ctx& c) {
         const float alpha = static_cast<float>(c.n.getFloat("alpha", 0.01));
         unary(c, [alpha](float x) { return x >= 0.f ? x : alpha * x; });
       }},
      {Op::HardSigmoid,
       [](const Ctx& c) {
         const float alpha = static_cast<float>(c.n.getFloat("alpha", 0.2)),
                     beta = static_cast<float>(c.n.getFloat("beta", 0.5));
         unary(c, [alpha, beta](float x) { return std::max(0.f, std::min(1.f, alpha * x + beta)); });
       }},
      {Op::HardSwish,
       [](const Ctx& c) { unary(c, [](float x) { return x * std::max(0.f, std::min(1.f, x / 6.f + 0.5f)); }); }},
      {Op::Sigmoid, [](const Ctx& c) { unary(c, [](float x) { return 1.f / (1.f + std::exp(-x)); }); }},
      {Op::Tanh, [](const Ctx& c) { unary(c, [](float x) { return std::tanh(x); }); }},
      {Op::Sqrt, [](const Ctx& c) { unary(c, [](float x) { return std::sqrt(x); }); }},
      {Op::Erf, [](const Ctx& c) { unary(c, [](float x) { return std::erf(x); }); }},
      {Op::Exp, [](const Ctx& c) { unary(c, [](float x) { return std::exp(x); }); }},
      {Op::Log, [](const Ctx& c) { unary(c, [](float x) { return std::log(x); }); }},
      {Op::Neg,
       [](const Ctx& c) {
         if (c.input(0).type == ElemType::Int64) {
           for (int64_t i = 0; i < c.output().elements(); ++i)
             c.output().data<int64_t>()[i] = -c.input(0).data<int64_t>()[i];
         } else {
           unary(c, [](float x) { return -x; });
         }
       }},
      {Op::Gelu,
       [](const Ctx& c) {
         const std::string approx = c.n.getString("approximate", "none");
         if (approx == "tanh")
           unary(c, tanhGelu);
         else if (approx == "none")
           unary(c, erfGelu);
         else
           throw Error("Gelu approximate='" + approx + "' is not supported");
       }},
  });
  for (Op op : {Op::Relu, Op::Clip, Op::PRelu, Op::LeakyRelu, Op::HardSigmoid, Op::HardSwish, Op::Sigmoid, Op::Tanh,
                Op::Sqrt, Op::Erf, Op::Exp, Op::Log, Op::Neg, Op::Gelu})
    t[op].shape = sameShape;
  t.int8Form(Int8Form::Lut, {Op::Sigmoid, Op::HardSigmoid, Op::HardSwish, Op::Tanh, Op::Gelu, Op::LeakyRelu, Op::Erf,
                             Op::Exp, Op::Neg});
  // (Log, like Sqrt, stays float: its table would hold -inf and NaN for the int8 values <= 0.)
  t.flag(kImported, {Op::Clip, Op::Erf, Op::Exp, Op::HardSigmoid, Op::HardSwish, Op::LeakyRelu, Op::Log, Op::Neg,
                     Op::PRelu, Op::Relu, Op::Sigmoid, Op::Sqrt, Op::Tanh});
  t.int8Form(Int8Form::Relu, {Op::Relu});
  t.int8Form(Int8Form::Clip, {Op::Clip});
  t.int8Kernels({{Op::Relu, int8_kernels::relu}, {Op::Clip, int8_kernels::clip}});
}

/// Abs, Elu, Softplus and Softsign, as exporters emit them (Mish is Softplus, Tanh and Mul): each
/// a Lut on int8.
void defineSmoothActivationOps(OpTable& t) {
  using namespace float_kernels;
  t.floatKernels({
      {Op::Abs, [](const Ctx& c) { unary(c, [](float x) { return std::fabs(x); }); }},
      {Op::Elu,
       [](const Ctx& c) {
         const float alpha = static_cast<float>(c.n.getFloat("alpha", 1.0));
         unary(c, [alpha](float x) { return x >= 0.f ? x : alpha * std::expm1(x); });
       }},
      // log(1 + e^x), which is x itself (to float precision) once e^x overflows.
      {Op::Softplus, [](const Ctx& c) { unary(c, [](float x) { return x > 80.f ? x : std::log1p(std::exp(x)); }); }},
      {Op::Softsign, [](const Ctx& c) { unary(c, [](float x) { return x / (1.f + std::fabs(x)); }); }},
  });
  for (Op op : {Op::Abs, Op::Elu, Op::Softplus, Op::Softsign}) t[op].shape = sameShape;
  t.flag(kImported, {Op::Abs, Op::Elu, Op::Softplus, Op::Softsign});
  t.int8Form(Int8Form::Lut, {Op::Abs, Op::Elu, Op::Softplus, Op::Softsign});
}

}  // namespace

void defineElementwiseOps(OpTable& t) {
  defineArithmeticOps(t);
  defineActivationOps(t);
  defineSmoothActivationOps(t);
  definePredicateOps(t);
}

}  // namespace systole::compiler
