// ONNX import: reads a float32 ONNX model (opsets 9 to 17) through ONNX's own protobuf classes,
// checks it with ONNX's checker, infers shapes with ONNX's shape inference (data propagation on,
// so torch's Shape/Gather/Concat shape computations resolve) and converts it to the compiler's
// Graph. Weights come from initializers and from Constant nodes (both become constant values).
// Every rejection is one line naming the file and, where one is at fault, the node and its op type.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "systole/compiler/graph.h"

namespace systole::compiler {

/// Oldest and newest default-domain opset the importer accepts.
inline constexpr int64_t kMinOpset = 9;
inline constexpr int64_t kMaxOpset = 17;

/// Operators the compiler handles (import rejects any other, naming the first node that uses one).
/// The float interpreter has a kernel for each; passes may also create the fused forms (Conv, Gemm,
/// MatMul, Add with "activation"; MatMul with a bias input) and LayerNormalization, Gelu.
const std::vector<std::string>& supportedOps();
bool isSupportedOp(std::string_view op);

/// Reads and converts `path`. Throws systole::Error (the CLI's exit code 2) on a file that is
/// missing, truncated or not ONNX, an opset out of range, an unsupported operator or element type,
/// a missing initializer, inconsistent shapes, or anything ONNX's checker rejects.
/// Symbolic input dimensions (e.g. a dynamic batch) are bound to 1.
Graph importOnnx(const std::string& path);

/// Same, from the bytes of a model; `name` is what error messages call it.
Graph importOnnxBytes(const std::string& bytes, const std::string& name);

}  // namespace systole::compiler
