#include "ops/op_def.h"

namespace systole::compiler {

void ShapeCtx::need(size_t count) const {
  for (size_t k = 0; k < count; ++k)
    if (!ops::present(in, k)) throw Error("input " + std::to_string(k) + " is missing");
}

std::vector<OutputInfo> ShapeCtx::same(std::vector<int64_t> shape) const {
  const ElemType type = in.empty() ? ElemType::Float32 : in[0].type;
  return std::vector<OutputInfo>(n.outputs.size(), OutputInfo{type, std::move(shape)});
}

OpTable::OpTable() {
  for (size_t i = 0; i < defs_.size(); ++i) defs_[i].op = static_cast<Op>(i);
}

void OpTable::floatKernels(std::initializer_list<std::pair<Op, float_kernels::Kernel>> kernels) {
  for (const auto& [op, k] : kernels) (*this)[op].float_kernel = k;
}

void OpTable::int8Kernels(std::initializer_list<std::pair<Op, int8_kernels::Kernel>> kernels) {
  for (const auto& [op, k] : kernels) (*this)[op].int8_kernel = k;
}

void OpTable::shapes(std::initializer_list<std::pair<Op, ShapeFn>> shapes) {
  for (const auto& [op, fn] : shapes) (*this)[op].shape = fn;
}

void OpTable::flag(OpFlag f, std::initializer_list<Op> ops) {
  for (Op op : ops) (*this)[op].flags |= f;
}

void OpTable::int8Form(Int8Form form, std::initializer_list<Op> ops) {
  for (Op op : ops) (*this)[op].int8_form = form;
}

const OpDef& opDef(Op op) {
  static const OpTable table = [] {
    OpTable t;
    defineElementwiseOps(t);
    defineLinearOps(t);
    defineNormalizationOps(t);
    defineMovementOps(t);
    defineQuantizedOps(t);
    defineRecurrentOps(t);
    return t;
  }();
  return table[op];
}

int64_t operatorMacs(const Graph& g, const Node& n) {
  const MacsFn macs = opDef(n).macs;
  return macs ? macs(g, n) : 0;
}

bool isByteCopy(Op op) { return opDef(op).has(kByteCopy); }

}  // namespace systole::compiler
