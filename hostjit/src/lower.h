// The lowerings: for a node, `plan*` reads its types, shapes and parameters from the graph (plain
// C++, no IR yet) and returns the code that emits its function body, or nothing when the node has
// no lowering (another op, an unsupported form); the node then runs in the interpreter. Every
// emitter reproduces its interpreter kernel's operations in the kernel's order.
#pragma once

#include <functional>

#include "ir.h"
#include "systole/compiler/graph.h"

namespace systole::hostjit {

/// The graph's value `id` (the lowerings read shapes and quantization parameters from it).
inline const compiler::Value& valueOf(const compiler::Graph& g, int id) { return g.values[static_cast<size_t>(id)]; }

using Emitter = std::function<void(Ir&)>;

Emitter planBoundary(const compiler::Graph& g,
                     const compiler::Node& n);  // QuantizeLinear, DequantizeLinear (lower_boundary.cpp)
Emitter planMovement(const compiler::Graph& g,
                     const compiler::Node& n);  // Identity, Reshape, ..., Transpose, Slice (lower_movement.cpp)
Emitter planNormalize(const compiler::Graph& g,
                      const compiler::Node& n);  // Softmax, LayerNormalization (lower_normalize.cpp)
Emitter planMatMul(const compiler::Graph& g,
                   const compiler::Node& n);  // float MatMul, int8 MatMul/Gemm (lower_matmul.cpp)
Emitter planElementwise(const compiler::Graph& g, const compiler::Node& n);  // float Div (lower_elementwise.cpp)

/// The first plan that accepts `n`; empty if none does (or a parameter is malformed: the
/// interpreter then reports it).
Emitter plan(const compiler::Graph& g, const compiler::Node& n);

}  // namespace systole::hostjit
