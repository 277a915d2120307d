// The reference interpreter: plain C++, no tiling. Float operators in float32; quantized
// operators (int8 tensors with the attributes of docs/quantized-ops.md) in exactly the integer
// arithmetic the ISA specifies (systole/isa/arith.h). It is the witness every compiled program is
// checked against.
#pragma once

#include <map>
#include <string>

#include "systole/compiler/graph.h"
#include "systole/compiler/host_tensor.h"

namespace systole::compiler {

/// Evaluates `g` on `inputs` (by graph-input name). Returns the graph outputs by name, or every
/// value computed when `keepAll` (calibration and --check use that). Throws systole::Error naming
/// the node, its op type and the reason for an unsupported operator or bad input.
std::map<std::string, HostTensor> interpret(const Graph& g, const std::map<std::string, HostTensor>& inputs,
                                            bool keepAll = false);

/// One node's kernel: reads `in` (nullptr for an omitted optional input), writes `out` (already
/// shaped and typed from the graph's values).
bool runQuantizedKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in,
                        std::vector<HostTensor*>& out);  // false if `n` is not a quantized op
void runFloatKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in,
                    std::vector<HostTensor*>& out);      // throws Error for an unknown op

}  // namespace systole::compiler
