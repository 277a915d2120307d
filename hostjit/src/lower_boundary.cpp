// Algorithm: the float <-> int8 boundary, as kernels_quant.cpp computes it. Per-tensor or per-axis
// parameters are constant tables indexed by channel (i / inner) % channels (folded to constants
// for one channel).
//   QuantizeLinear:   v = x / s (float); NaN -> sat8(z); else sat8(roundHalfToEven(double(v)) + z)
//                     in double, with roundHalfToEven written as quant_math.cpp writes it.
//   DequantizeLinear: y = s * float(int32(x) - z).
#include <algorithm>

#include "lower.h"
#include "systole/compiler/graph.h"
#include "systole/isa/arith.h"

namespace systole::hostjit {

namespace {

using compiler::ElemType;
using compiler::Graph;
using compiler::Node;
using compiler::Quant;

/// Per-element quantization parameters: one set, or one per index of `axis`.
struct Channels {
  std::vector<float> scale;
  std::vector<int32_t> zero_point;
  int64_t inner = 1, count = 1;
};

std::optional<Channels> channelsOf(const Quant& q, const std::vector<int64_t>& shape) {
  Channels c{q.scale, q.zero_point, 1, 1};
  if (q.axis >= 0) {
    if (q.axis >= static_cast<int>(shape.size())) return std::nullopt;
    c.count = shape[static_cast<size_t>(q.axis)];
    for (size_t d = static_cast<size_t>(q.axis) + 1; d < shape.size(); ++d) c.inner *= shape[d];
  }
  if (static_cast<int64_t>(c.scale.size()) != c.count || static_cast<int64_t>(c.zero_point.size()) != c.count)
    return std::nullopt;
  return c;
}

/// The channel of element i, and its scale and zero point.
std::pair<llvm::Value*, llvm::Value*> parameters(Ir& ir, const Channels& c, llvm::Value* scales, llvm::Value* zeros,
                                                 llvm::Value* i) {
  llvm::Value* ch = ir.b.CreateSRem(ir.b.CreateSDiv(i, ir.c64(c.inner)), ir.c64(c.count));
  return {ir.load(ir.f32(), scales, ch), ir.load(ir.i32(), zeros, ch)};
}

/// quant_math.cpp's roundHalfToEven, operation for operation: x itself for 0, NaN and |x| >= 2^52;
/// else floor by truncation, then up from an odd floor on a tie.
llvm::Value* roundHalfToEven(Ir& ir, llvm::Value* x) {
  auto& b = ir.b;
  constexpr double kAllIntegers = 4503599627370496.0;  // 2^52
  llvm::Value* keep =
      b.CreateOr(b.CreateFCmpOEQ(x, ir.cf64(0)),
                 b.CreateNot(b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), ir.cf64(kAllIntegers))));
  llvm::Value* toward = b.CreateFPToSI(x, ir.i64());
  llvm::Value* floor =
      b.CreateSub(toward, b.CreateZExt(b.CreateFCmpOGT(b.CreateSIToFP(toward, ir.f64()), x), ir.i64()));
  llvm::Value* d = b.CreateFSub(x, b.CreateSIToFP(floor, ir.f64()));
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(floor, ir.c64(1)), ir.c64(0));
  llvm::Value* up = b.CreateOr(b.CreateFCmpOGT(d, ir.cf64(0.5)), b.CreateAnd(b.CreateFCmpOEQ(d, ir.cf64(0.5)), odd));
  llvm::Value* rounded = b.CreateSIToFP(b.CreateAdd(floor, b.CreateZExt(up, ir.i64())), ir.f64());
  return b.CreateSelect(keep, x, rounded);
}

/// std::clamp(v, lo, hi) for doubles: v < lo ? lo : hi < v ? hi : v.
llvm::Value* clampDouble(Ir& ir, llvm::Value* v, double lo, double hi) {
  auto& b = ir.b;
  return b.CreateSelect(b.CreateFCmpOLT(v, ir.cf64(lo)), ir.cf64(lo),
                        b.CreateSelect(b.CreateFCmpOLT(ir.cf64(hi), v), ir.cf64(hi), v));
}

Emitter quantize(const Graph& g, const Node& n) {
  const auto& x = g.values[static_cast<size_t>(n.inputs[0])];
  const auto& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (x.type != ElemType::Float32 || y.type != ElemType::Int8 || !y.quant) return {};
  auto c = channelsOf(*y.quant, y.shape);
  if (!c) return {};
  return [c = *c, elements = y.elements()](Ir& ir) {
    auto& b = ir.b;
    llvm::Value *in = ir.input(0), *out = ir.output(0), *scales = ir.table(c.scale), *zeros = ir.table(c.zero_point);
    ir.loop(elements, [&](llvm::Value* i) {
      auto [s, z] = parameters(ir, c, scales, zeros, i);
      llvm::Value* v = b.CreateFDiv(ir.load(ir.f32(), in, i), s);
      llvm::Value* q = b.CreateFAdd(roundHalfToEven(ir, b.CreateFPExt(v, ir.f64())), b.CreateSIToFP(z, ir.f64()));
      llvm::Value* fromV = b.CreateFPToSI(clampDouble(ir, q, isa::arith::kActMin, isa::arith::kActMax), ir.i8());
      // std::clamp(z, -128, 127) for a NaN quotient.
      llvm::Value* zc = b.CreateSelect(
          b.CreateICmpSLT(z, ir.c32(isa::arith::kActMin)), ir.c32(isa::arith::kActMin),
          b.CreateSelect(b.CreateICmpSLT(ir.c32(isa::arith::kActMax), z), ir.c32(isa::arith::kActMax), z));
      ir.store(b.CreateSelect(b.CreateFCmpUNO(v, v), b.CreateTrunc(zc, ir.i8()), fromV), out, i);
    });
  };
}

Emitter dequantize(const Graph& g, const Node& n) {
  const auto& x = g.values[static_cast<size_t>(n.inputs[0])];
  const auto& y = g.values[static_cast<size_t>(n.outputs[0])];
  if (x.type != ElemType::Int8 || y.type != ElemType::Float32 || !x.quant || x.elements() != y.elements()) return {};
  auto c = channelsOf(*x.quant, x.shape);
  if (!c) return {};
  return [c = *c, elements = y.elements()](Ir& ir) {
    auto& b = ir.b;
    llvm::Value *in = ir.input(0), *out = ir.output(0), *scales = ir.table(c.scale), *zeros = ir.table(c.zero_point);
    ir.loop(
        elements,
        [&](llvm::Value* i) {
          auto [s, z] = parameters(ir, c, scales, zeros, i);
          llvm::Value* centred = b.CreateSub(b.CreateSExt(ir.load(ir.i8(), in, i), ir.i32()), z);
          ir.store(b.CreateFMul(s, b.CreateSIToFP(centred, ir.f32())), out, i);
        },
        true);
  };
}

}  // namespace

Emitter planBoundary(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.size() != 1) return {};
  if (n.op == compiler::Op::QuantizeLinear) return quantize(g, n);
  if (n.op == compiler::Op::DequantizeLinear) return dequantize(g, n);
  return {};
}

}  // namespace systole::hostjit
