// Algorithm: a node is quantized when it is QuantizeLinear, DequantizeLinear or Requant, or when
// its first input is int8 and it is not pure data movement (which the float kernels run on bytes
// of any type); it then runs its operator's int8 kernel (its definition in src/ops/: one plain
// loop nest per operator of docs/quantized-ops.md, through systole/isa/arith.h, so every rounding
// and wrap-around matches the NPU). Anything else returns false and runs as a float kernel.
#include <string>

#include "ops/op_def.h"
#include "systole/compiler/interpreter.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

bool isQuantizedNode(const Graph& g, const Node& n) {
  if (n.op == Op::QuantizeLinear || n.op == Op::DequantizeLinear || n.op == Op::Requant) return true;
  if (opDef(n).int8_form == Int8Form::Move) return false;  // pure data movement: the float kernels run it on any type
  return !n.inputs.empty() && n.inputs[0] >= 0 && isActivationType(g.values.at(static_cast<size_t>(n.inputs[0])).type);
}

}  // namespace

bool runQuantizedKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in,
                        std::vector<HostTensor*>& out) {
  if (!isQuantizedNode(g, n)) return false;
  if (out.size() != 1 || out[0] == nullptr) throw Error("a quantized operator has exactly one output");
  HostTensor& y = *out[0];
  if (n.op == Op::DequantizeLinear) {
    if (y.type != ElemType::Float32) throw Error("output must be f32");
  } else if (!isActivationType(y.type)) {
    throw Error("output must be i8 or i16");
  }
  const int8_kernels::Kernel kernel = opDef(n).int8_kernel;
  if (!kernel) throw Error("no quantized kernel for an int8 '" + n.op + "'");
  kernel(g, n, in, y);
  return true;
}

}  // namespace systole::compiler
