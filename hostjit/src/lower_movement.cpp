// Algorithm: data movement on any element type, as kernels_float.cpp moves it. Identity, Reshape,
// Flatten, Squeeze, Unsqueeze and Dropout copy the bytes (one memcpy). Transpose, Slice,
// FlattenNhwc and UnflattenNhwc are one strided gather: the output is walked in order (a loop per dimension) and
// element (i0, i1, ...) reads input element base + sum(i_d * stride_d), with the strides and the
// base constants of the node (Transpose: the permuted input strides; Slice: start and step times
// the input strides; FlattenNhwc: [N, C, HW] read as [N, HW, C]; UnflattenNhwc the other way); an innermost dimension
// that is contiguous in the input moves as one memcpy per run. Elements move as integers of their size, so every bit (a
// NaN's payload too) is kept.
#include "systole/compiler/float_ops.h"
#include "lower.h"

namespace systole::hostjit {

namespace {

using compiler::Graph;
using compiler::Node;
namespace ops = compiler::ops;

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  for (size_t i = shape.size(), s = 1; i-- > 0;) {
    strides[i] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(shape[i]);
  }
  return strides;
}

/// out[o] = in[base + sum(idx_d * stride_d)] over the output `shape`, elements of `bytes` bytes.
/// When the innermost dimension is contiguous in the input (stride 1), each of its runs is one
/// memcpy.
Emitter gather(std::vector<int64_t> shape, int64_t base, std::vector<int64_t> strides, int64_t bytes) {
  return [=](Ir& ir) {
    auto& b = ir.b;
    llvm::Type* elem = b.getIntNTy(static_cast<unsigned>(bytes * 8));
    llvm::Value *in = ir.input(0), *out = ir.output(0);
    const bool runs = !shape.empty() && strides.back() == 1;
    const int64_t run = runs ? shape.back() : 1;
    llvm::Value* o = ir.local(ir.i64(), ir.c64(0));
    ir.loopNest({shape.begin(), shape.end() - (runs ? 1 : 0)}, [&](const std::vector<llvm::Value*>& idx) {
      llvm::Value* off = ir.c64(base);
      for (size_t d = 0; d < idx.size(); ++d) off = b.CreateAdd(off, b.CreateMul(idx[d], ir.c64(strides[d])));
      llvm::Value* at = b.CreateLoad(ir.i64(), o);
      if (runs)
        b.CreateMemCpy(ir.at(elem, out, at), {}, ir.at(elem, in, off), {}, static_cast<uint64_t>(run * bytes));
      else
        ir.store(ir.load(elem, in, off), out, at);
      b.CreateStore(b.CreateAdd(at, ir.c64(run)), o);
    });
  };
}

}  // namespace

Emitter planMovement(const Graph& g, const Node& n) {
  if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.size() != 1) return {};
  const auto& x = g.values[static_cast<size_t>(n.inputs[0])];
  const auto& y = g.values[static_cast<size_t>(n.outputs[0])];
  const int64_t bytes = compiler::elemTypeBytes(x.type);
  if (y.type != x.type || bytes <= 0) return {};
  if (compiler::isByteCopy(n.op.kind())) {
    if (x.elements() != y.elements()) return {};
    return [size = x.elements() * bytes](Ir& ir) { ir.b.CreateMemCpy(ir.output(0), {}, ir.input(0), {}, size); };
  }
  if (n.op == compiler::Op::Transpose) {
    const auto perm = ops::transposePerm(n, x.shape.size());
    const auto in = rowMajorStrides(x.shape);
    std::vector<int64_t> strides;
    for (int64_t p : perm) strides.push_back(in[static_cast<size_t>(p)]);
    return gather(y.shape, 0, strides, bytes);
  }
  if (n.op == compiler::Op::Slice) {
    const auto axes = ops::sliceParams(n, g.opset, ops::graphOperands(g, n));
    const auto in = rowMajorStrides(x.shape);
    int64_t base = 0;
    std::vector<int64_t> shape, strides;
    for (size_t d = 0; d < axes.size(); ++d) {
      base += axes[d].start * in[d];
      shape.push_back(axes[d].count);
      strides.push_back(axes[d].step * in[d]);
    }
    if (shape != y.shape) return {};
    return gather(shape, base, strides, bytes);
  }
  if (n.op == compiler::Op::FlattenNhwc && x.shape.size() == 4) {
    const int64_t N = x.shape[0], C = x.shape[1], HW = x.shape[2] * x.shape[3];
    return gather({N, HW, C}, 0, {C * HW, 1, HW}, bytes);
  }
  if (n.op == compiler::Op::UnflattenNhwc && x.shape.size() == 3) {
    const int64_t N = x.shape[0], HW = x.shape[1], C = x.shape[2];
    return gather({N, C, HW}, 0, {HW * C, 1, C}, bytes);
  }
  return {};
}

}  // namespace systole::hostjit
