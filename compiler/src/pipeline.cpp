#include "systole/compiler/pipeline.h"

#include <chrono>

#include "systole/compiler/onnx_import.h"
#include "systole/compiler/passes.h"

namespace systole::compiler {

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<TensorMap> calibrationInputs(const Graph& g, const PipelineOptions& options) {
  if (options.calibration_dir.empty()) return makeRandomInputs(g, options.calibration_samples, options.seed);
  return loadCalibrationDir(g, options.calibration_dir);
}

}  // namespace

PipelineResult runPipeline(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options, Stage last,
                           const std::function<void(Stage, const Graph&)>& onStage) {
  PipelineResult r;
  auto t = std::chrono::steady_clock::now();
  r.graph = importOnnx(modelPath);
  r.times.import_s = since(t);
  if (onStage) onStage(Stage::Graph, r.graph);
  if (last == Stage::Graph) return r;

  t = std::chrono::steady_clock::now();
  optimize(r.graph);
  r.times.optimize_s = since(t);
  if (onStage) onStage(Stage::Opt, r.graph);
  if (last == Stage::Opt) return r;

  t = std::chrono::steady_clock::now();
  r.quant = quantize(r.graph, calibrationInputs(r.graph, options), options.quant);
  r.times.quantize_s = since(t);
  if (onStage) onStage(Stage::Quant, r.graph);
  if (last == Stage::Quant) return r;

  t = std::chrono::steady_clock::now();
  r.compiled = compileModel(r.graph, isa, options.lower);
  r.times.lower_s = since(t);
  return r;
}

}  // namespace systole::compiler
