#include "quantize/quantize_lut.h"

#include <algorithm>
#include <array>

#include "ops/op_def.h"
#include "systole/compiler/interpreter.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

bool isLutOperator(Op op) { return opDef(op).int8_form == Int8Form::Lut; }

std::vector<float> lutLevels(const ActivationQuant& in) {
  std::vector<float> x(256);
  for (int q = isa::arith::kActMin; q <= isa::arith::kActMax; ++q)
    x[static_cast<size_t>(q - isa::arith::kActMin)] = in.scale * static_cast<float>(q - in.zero_point);
  return x;
}

std::vector<float> lutFloats(const Graph& g, const Node& n, const std::vector<float>& xs) {
  HostTensor x(ElemType::Float32, {256}), y(ElemType::Float32, {256});
  std::copy(xs.begin(), xs.end(), x.data<float>());
  // The activation's 256 values in its place; a one-element constant (x + 3) as itself.
  std::vector<HostTensor> constants;
  constants.reserve(n.inputs.size());
  std::vector<const HostTensor*> inputs;
  for (int v : n.inputs) {
    const Value& c = g.values[static_cast<size_t>(v)];
    if (!c.is_constant) {
      inputs.push_back(&x);
      continue;
    }
    constants.emplace_back(c.type, std::vector<int64_t>{c.elements()});
    constants.back().bytes = c.data;
    inputs.push_back(&constants.back());
  }
  std::vector<HostTensor*> outputs = {&y};
  runFloatKernel(g, n, inputs, outputs);
  return std::vector<float>(y.data<float>(), y.data<float>() + 256);
}

std::vector<int64_t> lutTableOf(const std::vector<float>& y, const ActivationQuant& out) {
  std::vector<int64_t> table(256);
  for (size_t i = 0; i < 256; ++i) table[i] = quantizeFloat(y[i], out.scale, out.zero_point);
  return table;
}

std::vector<int64_t> lutTable(const Graph& g, const Node& n, const ActivationQuant& in, const ActivationQuant& out) {
  return lutTableOf(lutFloats(g, n, lutLevels(in)), out);
}

}  // namespace systole::compiler
