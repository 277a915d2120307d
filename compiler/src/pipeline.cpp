#include "systole/compiler/pipeline.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "systole/compiler/onnx_import.h"
#include "systole/compiler/passes.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/npy.h"

namespace systole::compiler {

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::vector<TensorMap> calibrationInputs(const Graph& g, const PipelineOptions& options) {
  if (options.calibration_dir.empty()) return makeRandomInputs(g, options.calibration_samples, options.seed);
  if (g.inputs.size() != 1) throw Error("--calib DIR supports single-input models (one .npy file per sample)");
  const Value& in = g.values[static_cast<size_t>(g.inputs[0])];
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(options.calibration_dir))
    if (e.path().extension() == ".npy") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(SourceLocation{options.calibration_dir, 0, 0}, "no .npy files for calibration");
  std::vector<TensorMap> samples;
  for (const auto& f : files) {
    NpyArray a = readNpy(f);
    if (a.dtype != isa::DType::Float32 || a.shape != in.shape)
      throw Error(SourceLocation{f, 0, 0}, "calibration sample must be float32 with the shape of input '" + in.name + "'");
    HostTensor t(ElemType::Float32, a.shape);
    t.bytes = std::move(a.bytes);
    samples.push_back({{in.name, std::move(t)}});
  }
  return samples;
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
  r.compiled = lowerToProgram(r.graph, isa, options.lower);
  r.times.lower_s = since(t);
  return r;
}

}  // namespace systole::compiler
