// Algorithm: kernels_float.cpp's binary arithmetic on float32 tensors, element by element in
// row-major output order: y[o] = a[offset_a(o)] op b[offset_b(o)], each input read through its
// numpy broadcast strides (0 along a broadcast dimension). One IEEE operation per element, as the
// kernel does it, so the results are the same bits. Lowered: Div (a quotient by an activation;
// a quotient by a constant is a scale on the NPU).
#include "lower.h"
#include "systole/compiler/float_ops.h"

namespace systole::hostjit {

using compiler::ElemType;
using compiler::Graph;
using compiler::Node;
namespace ops = compiler::ops;

Emitter planElementwise(const Graph& g, const Node& n) {
  if (n.op != compiler::Op::Div || n.inputs.size() != 2 || n.outputs.size() != 1 || n.inputs[0] < 0 || n.inputs[1] < 0)
    return {};
  const auto& a = valueOf(g, n.inputs[0]);
  const auto& b = valueOf(g, n.inputs[1]);
  const auto& y = valueOf(g, n.outputs[0]);
  if (a.type != ElemType::Float32 || b.type != ElemType::Float32 || y.type != ElemType::Float32) return {};
  if (ops::broadcast(a.shape, b.shape) != y.shape) return {};
  // A scalar output is a loop of one element.
  const bool scalar = y.shape.empty();
  const std::vector<int64_t> shape = scalar ? std::vector<int64_t>{1} : y.shape;
  const std::vector<int64_t> stridesA = scalar ? std::vector<int64_t>{0} : ops::broadcastStrides(a.shape, y.shape);
  const std::vector<int64_t> stridesB = scalar ? std::vector<int64_t>{0} : ops::broadcastStrides(b.shape, y.shape);
  return [=](Ir& ir) {
    auto& bld = ir.b;
    llvm::Value *pa = ir.input(0), *pb = ir.input(1), *py = ir.output(0);
    llvm::Value* o = ir.local(ir.i64(), ir.c64(0));
    ir.loopNest(shape, [&](const std::vector<llvm::Value*>& idx) {
      llvm::Value *offA = ir.c64(0), *offB = ir.c64(0);
      for (size_t d = 0; d < idx.size(); ++d) {
        if (stridesA[d]) offA = bld.CreateAdd(offA, bld.CreateMul(idx[d], ir.c64(stridesA[d])));
        if (stridesB[d]) offB = bld.CreateAdd(offB, bld.CreateMul(idx[d], ir.c64(stridesB[d])));
      }
      llvm::Value* at = bld.CreateLoad(ir.i64(), o);
      ir.store(bld.CreateFDiv(ir.load(ir.f32(), pa, offA), ir.load(ir.f32(), pb, offB)), py, at);
      bld.CreateStore(bld.CreateAdd(at, ir.c64(1)), o);
    });
  };
}

}  // namespace systole::hostjit
