// Tables for the Lut operator (docs/quantized-ops.md): an int8 -> int8 function of one input is
// exactly a 256-entry table once the input's and output's quantization are fixed.
#pragma once

#include <string_view>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/quant_math.h"

namespace systole::compiler {

/// Float operators of one input that become a Lut when their input is int8.
bool isLutOperator(Op op);

/// table[q + 128] = quantizeFloat(f(s_x (q - z_x)), s_y, z_y) for q = -128..127, where f is `n`'s
/// own float kernel (so the table and the float model cannot disagree). Inputs of `n` that are
/// constants (one element: an Add of 3) keep their value.
std::vector<int64_t> lutTable(const Graph& g, const Node& n, const ActivationQuant& in, const ActivationQuant& out);

/// The 256 float values `n`'s own float kernel gives for `x` (256 inputs in table order; other
/// inputs one-element constants), and their table at the output's quantization: a chain of
/// table functions is composed by feeding one's floats to the next before any rounding.
std::vector<float> lutFloats(const Graph& g, const Node& n, const std::vector<float>& x);
std::vector<int64_t> lutTableOf(const std::vector<float>& y, const ActivationQuant& out);
/// The 256 int8 levels of `in`, dequantized, in table order.
std::vector<float> lutLevels(const ActivationQuant& in);

}  // namespace systole::compiler
