// Algorithm: one plain-loop kernel per operator, float32 arithmetic (int64/int32 for the shape
// computations torch exports: Shape, Gather, Concat, Add...); data movement (Reshape, Transpose,
// Concat, Split, Slice, Gather, Pad...) works on bytes and so on every element type. Output tensors arrive
// shaped from the graph; parameters that may live in attributes or inputs, and all window geometry,
// come from src/float_ops.h, the same code the shape-inference pass uses. Loops are ordered so the
// innermost one walks contiguous memory (Conv: im2col, then the blocked GEMM of float_gemm.h; MatMul: i-k-j).
// Fused forms: Conv/Gemm/MatMul/Add with attribute "activation" ("relu", or "clip" with
// clip_min/clip_max), MatMul with a third (bias) input, LayerNormalization and Gelu.
// The kernels are the operators' definitions (src/ops/{elementwise,linear,normalization,movement}.cpp);
// this file runs one node's.
#include "ops/op_def.h"

namespace systole::compiler {

void runFloatKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in,
                    std::vector<HostTensor*>& out) {
  const float_kernels::Kernel kernel = opDef(n).float_kernel;
  if (!kernel) throw Error("no float kernel for operator '" + n.op + "'");
  float_kernels::Ctx c{g, n, in, out, {}};
  for (const HostTensor* t : in) {
    ops::Operand o;
    if (t) {
      o.present = true;
      o.type = t->type;
      o.shape = t->shape;
      o.data = t->bytes.data();
    }
    c.operands.push_back(std::move(o));
  }
  kernel(c);
}

}  // namespace systole::compiler
