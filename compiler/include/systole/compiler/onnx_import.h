// ONNX import: reads a float32 ONNX model (opsets 9 to 17) through ONNX's own protobuf classes,
// checks it with ONNX's checker, infers shapes with ONNX's shape inference (data propagation on,
// so torch's Shape/Gather/Concat shape computations resolve) and converts it to the compiler's
// Graph. Weights come from initializers and from Constant nodes (both become constant values).
// Every rejection is one line naming the file and, where one is at fault, the node and its op type.
#pragma once

#include <map>
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

struct ImportOptions {
  /// Shapes for graph inputs by name (--shape NAME=1x3x224x224): they bind symbolic dimensions
  /// and must agree with every fixed one.
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

/// Reads and converts `path`. Throws systole::Error (the CLI's exit code 2) on a file that is
/// missing, truncated or not ONNX, an opset out of range, an unsupported operator or element type,
/// a missing initializer, inconsistent shapes, or anything ONNX's checker rejects.
/// A symbolic input dimension is bound by options.input_shapes; a symbolic leading (batch)
/// dimension left unbound is 1; any other unbound one is an error naming the input and dimension.
Graph importOnnx(const std::string& path, const ImportOptions& options = {});

/// Same, from the bytes of a model; `name` is what error messages call it.
Graph importOnnxBytes(const std::string& bytes, const std::string& name, const ImportOptions& options = {});

/// "1x3x224x224" -> {1, 3, 224, 224}; throws Error on anything else (a dimension must be >= 1).
std::vector<int64_t> parseShape(const std::string& text);

}  // namespace systole::compiler
