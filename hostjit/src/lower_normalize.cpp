// Algorithm: kernels_float.cpp's Softmax and LayerNormalization, operation for operation.
//   Softmax, per reduced line: m = max over k (std::max: m < x ? x : m, from -inf); e_k =
//     expf(x_k - m) (the process's expf, called through hostExpf: the same function the kernel
//     calls) stored into y; sum of the e_k in double; y_k *= float(1.0 / sum).
//   LayerNormalization, per row of the normalized shape: mean and variance summed in double in
//     index order, inv = 1 / sqrt(var + eps); y = float((x - mean) * inv) * scale + bias in float
//     (bias 0 when absent: the kernel adds it too, which turns -0 into +0). Scale and bias must
//     already have the normalized shape (leading 1s aside); other broadcasts stay interpreted.
#include <cmath>
#include <limits>

#include "systole/compiler/float_ops.h"
#include "lower.h"

namespace systole::hostjit {

namespace {

using compiler::ElemType;
using compiler::Graph;
using compiler::Node;
namespace ops = compiler::ops;

Emitter softmax(const Graph& g, const Node& n) {
  const auto& X = valueOf(g, n.inputs[0]);
  const size_t rank = X.shape.size();
  const bool legacy = g.opset < 13;
  const size_t axis = ops::normAxis(n.getInt("axis", legacy ? 1 : -1), rank);
  const int64_t outer = ops::product(X.shape, 0, axis);
  const int64_t len = legacy ? ops::product(X.shape, axis) : X.shape[axis];
  const int64_t inner = legacy ? 1 : ops::product(X.shape, axis + 1);
  return [=](Ir& ir) {
    auto& b = ir.b;
    llvm::FunctionCallee expf =
        ir.m.getOrInsertFunction("systole_host_expf", llvm::FunctionType::get(ir.f32(), {ir.f32()}, false));
    llvm::Value *x = ir.input(0), *y = ir.output(0);
    ir.loopNest({outer, inner}, [&](const std::vector<llvm::Value*>& oi) {
      llvm::Value* base = b.CreateAdd(b.CreateMul(oi[0], ir.c64(len * inner)), oi[1]);
      auto element = [&](llvm::Value* k) { return b.CreateAdd(base, b.CreateMul(k, ir.c64(inner))); };
      llvm::Value* mx = ir.local(ir.f32(), ir.cf32(-std::numeric_limits<float>::infinity()));
      ir.loop(len, [&](llvm::Value* k) {
        llvm::Value *m = b.CreateLoad(ir.f32(), mx), *v = ir.load(ir.f32(), x, element(k));
        b.CreateStore(b.CreateSelect(b.CreateFCmpOLT(m, v), v, m), mx);
      });
      llvm::Value* m = b.CreateLoad(ir.f32(), mx);
      llvm::Value* sum = ir.local(ir.f64(), ir.cf64(0));
      ir.loop(len, [&](llvm::Value* k) {
        llvm::Value* e = b.CreateCall(expf, {b.CreateFSub(ir.load(ir.f32(), x, element(k)), m)});
        ir.store(e, y, element(k));
        b.CreateStore(b.CreateFAdd(b.CreateLoad(ir.f64(), sum), b.CreateFPExt(e, ir.f64())), sum);
      });
      llvm::Value* inv = b.CreateFPTrunc(b.CreateFDiv(ir.cf64(1.0), b.CreateLoad(ir.f64(), sum)), ir.f32());
      ir.loop(
          len,
          [&](llvm::Value* k) {
            llvm::Value* at = element(k);
            ir.store(b.CreateFMul(ir.load(ir.f32(), y, at), inv), y, at);
          },
          true);
    });
  };
}

std::vector<int64_t> withoutLeadingOnes(std::vector<int64_t> s) {
  while (!s.empty() && s.front() == 1) s.erase(s.begin());
  return s;
}

Emitter layerNorm(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs[1] < 0) return {};
  const auto& X = valueOf(g, n.inputs[0]);
  const size_t axis = ops::normAxis(n.getInt("axis", -1), X.shape.size());
  const double eps = n.getFloat("epsilon", 1e-5);
  const std::vector<int64_t> normShape(X.shape.begin() + static_cast<long>(axis), X.shape.end());
  const int64_t outer = ops::product(X.shape, 0, axis), inner = ops::product(normShape);
  const bool hasBias = n.inputs.size() > 2 && n.inputs[2] >= 0;
  for (size_t k = 1; k < (hasBias ? 3u : 2u); ++k) {
    const auto& v = valueOf(g, n.inputs[k]);
    if (v.type != ElemType::Float32 || withoutLeadingOnes(v.shape) != withoutLeadingOnes(normShape)) return {};
  }
  return [=](Ir& ir) {
    auto& b = ir.b;
    llvm::Value *x = ir.input(0), *scale = ir.input(1), *bias = hasBias ? ir.input(2) : nullptr, *y = ir.output(0);
    const double count = static_cast<double>(inner);
    ir.loop(outer, [&](llvm::Value* o) {
      llvm::Value* row = b.CreateMul(o, ir.c64(inner));
      auto xAt = [&](llvm::Value* i) { return b.CreateFPExt(ir.load(ir.f32(), x, b.CreateAdd(row, i)), ir.f64()); };
      llvm::Value* sum = ir.local(ir.f64(), ir.cf64(0));
      ir.loop(inner, [&](llvm::Value* i) { b.CreateStore(b.CreateFAdd(b.CreateLoad(ir.f64(), sum), xAt(i)), sum); });
      llvm::Value* mean = b.CreateFDiv(b.CreateLoad(ir.f64(), sum), ir.cf64(count));
      llvm::Value* var = ir.local(ir.f64(), ir.cf64(0));
      ir.loop(inner, [&](llvm::Value* i) {
        llvm::Value* d = b.CreateFSub(xAt(i), mean);
        b.CreateStore(b.CreateFAdd(b.CreateLoad(ir.f64(), var), b.CreateFMul(d, d)), var);
      });
      llvm::Value* variance = b.CreateFDiv(b.CreateLoad(ir.f64(), var), ir.cf64(count));
      llvm::Value* inv = b.CreateFDiv(
          ir.cf64(1.0), b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, b.CreateFAdd(variance, ir.cf64(eps))));
      ir.loop(
          inner,
          [&](llvm::Value* i) {
            llvm::Value* t = b.CreateFPTrunc(b.CreateFMul(b.CreateFSub(xAt(i), mean), inv), ir.f32());
            llvm::Value* scaled = b.CreateFMul(t, ir.load(ir.f32(), scale, i));
            ir.store(b.CreateFAdd(scaled, bias ? ir.load(ir.f32(), bias, i) : ir.cf32(0.f)), y, b.CreateAdd(row, i));
          },
          true);
    });
  };
}

}  // namespace

Emitter planNormalize(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.size() != 1) return {};
  const auto& x = valueOf(g, n.inputs[0]);
  const auto& y = valueOf(g, n.outputs[0]);
  if (x.type != ElemType::Float32 || y.type != ElemType::Float32 || x.shape != y.shape) return {};
  if (n.op == compiler::Op::Softmax) return n.inputs.size() > 1 ? Emitter{} : softmax(g, n);  // masked: interpreter
  if (n.op == compiler::Op::LayerNormalization) return layerNorm(g, n);
  return {};
}

}  // namespace systole::hostjit
