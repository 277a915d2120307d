// Preconditions that ONNX's own shape-inference functions assume but do not check (each one a
// crash found by fuzzing, tests/fuzz): installed once, in front of the inference function of the
// operators concerned, for every opset the importer accepts. A violated one is an ONNX shape
// inference error, so the importer reports it like any other, naming the node.
#pragma once

namespace systole::compiler {

/// Wraps the inference functions in ONNX's schema registry (idempotent, thread-safe).
void installShapeInferenceGuards();

}  // namespace systole::compiler
