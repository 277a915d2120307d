// Step 1 of the quantization rewrite (quantize.cpp): the NPU-eligible form of each float node,
// checked against the conditions of docs/quantized-ops.md, and the readers of float constants both
// steps use.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op_def.h"
#include "systole/compiler/graph.h"

namespace systole::compiler::quant {

/// A node's NPU-eligible form (Float: none, it stays float): the int8 form of its operator's
/// definition where the form's conditions hold.
using Kind = Int8Form;

/// Compute operators (Conv, Gemm, MatMul, Add, Mul, AveragePool, GlobalAveragePool, Softmax,
/// LayerNormalization) always become int8; the others follow their inputs.
bool isCompute(Kind k);

/// Every node's kind, indexed like g.nodes (a dead node's is Float). With activations of
/// `activationBits` other than 8 (int16), only the forms whose integer arithmetic is written for
/// any lane width (activationWidthForm) are taken; the others stay float.
std::vector<Kind> classifyNodes(const Graph& g, int activationBits = 8);

/// The forms built for int16 activations as well as int8: the matrix layers with constant
/// weights, Add, the pools, the clamps, data movement and Concat. Mul and products of two
/// activations could pass the 32-bit accumulator at int16; the tables (Lut, Softmax,
/// LayerNormalization) have 256 int8 entries.
bool activationWidthForm(Kind k);

/// A Conv, or a Gemm / MatMul, whose weights (input 1) are a constant: a layer with a weight width.
bool isMatrixLayer(const Graph& g, const Node& n);

/// A float constant's values in place (weights are read, not copied: they can be most of a model).
const float* floatData(const Value& v);
std::vector<float> floatsOf(const Value& v);

/// A Mul by (either side) or Div by a constant float whose factors are positive and finite: one
/// (a scalar) or one per channel of a 4-D [N, C, H, W] operand (a constant of shape [C, 1, 1] or
/// [1, C, 1, 1], as layer scales export). The factors and the index of the other input.
struct ConstantFactor {
  std::vector<double> factors;
  size_t input = 0;
};
std::optional<ConstantFactor> constantFactor(const Graph& g, const Node& n);

}  // namespace systole::compiler::quant
