// The whole compiler, stage by stage: ONNX import -> graph optimization -> INT8 quantization ->
// lowering to an NPU program. `systole compile` and `systole run` both use it.
#pragma once

#include <optional>
#include <string>

#include "systole/compiler/backend.h"
#include "systole/compiler/graph.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/config.h"

namespace systole::compiler {

enum class Stage { Graph, Opt, Quant, Tiles, Asm, Program };

struct PipelineOptions {
  QuantOptions quant;
  int calibration_samples = 8;  // seeded random inputs when no calibration directory is given
  std::string calibration_dir;  // .npy files, one sample per file (single-input models)
  uint64_t seed = 0;
  LowerOptions lower;
};

struct PipelineTimes {
  double import_s = 0, optimize_s = 0, quantize_s = 0, lower_s = 0;
};

struct PipelineResult {
  Graph graph;                      // as imported, then optimized, then quantized, in place
  std::optional<CompiledModel> compiled;
  QuantSummary quant;
  PipelineTimes times;
};

/// Runs the stages up to and including `last`; `onStage` sees the graph after Graph, Opt and
/// Quant (for --emit). Throws systole::Error on bad input.
PipelineResult runPipeline(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options, Stage last,
                           const std::function<void(Stage, const Graph&)>& onStage = {});

}  // namespace systole::compiler
