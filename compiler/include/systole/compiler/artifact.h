// One compiled artifact for any model: a version-2 .sbin (docs/sbin-format.md) holding every NPU
// program and the model around them: the quantized graph (host operators with their attributes
// and constants, quantization parameters, the float inputs and outputs by their ONNX names) and
// the schedule of host steps and programs with each program's boundary tensors and layer reports.
// `systole compile -o` writes it; `systole run` and `systole sim` execute it without the ONNX file.
#pragma once

#include <string>
#include <vector>

#include "systole/compiler/backend.h"
#include "systole/compiler/graph.h"
#include "systole/isa/config.h"

namespace systole::compiler {

struct Artifact {
  std::string isa_name;  // the config it was compiled for (also with no NPU program)
  uint64_t isa_hash = 0;
  Graph graph;          // the quantized graph
  CompiledModel model;  // its schedule, programs included
};

std::vector<uint8_t> serializeArtifact(const isa::IsaConfig& isa, const Graph& quantized, const CompiledModel& model);
/// Throws Error naming `name` on anything malformed (every count, id and size is checked).
Artifact deserializeArtifact(const std::vector<uint8_t>& bytes, const std::string& name);

/// Written atomically; read back with every check of deserializeArtifact.
void writeArtifact(const std::string& path, const isa::IsaConfig& isa, const Graph& quantized,
                   const CompiledModel& model);
/// Throws Error unless the artifact was compiled for `isa` (the name and the config file's hash).
void checkArtifactMatches(const Artifact& artifact, const isa::IsaConfig& isa, const std::string& name);
Artifact readArtifact(const std::string& path);

}  // namespace systole::compiler
