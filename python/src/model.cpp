#include "model.h"

#include <chrono>

#include "systole/compiler/artifact.h"

namespace systole::python {

std::mutex& simulatorMutex() {
  static std::mutex m;
  return m;
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::unique_ptr<Model> Model::compile(const std::string& modelPath, std::shared_ptr<const isa::IsaConfig> config,
                                      const compiler::PipelineOptions& options, const std::string& cacheDir) {
  const auto start = std::chrono::steady_clock::now();
  compiler::CachedCompile c;
  if (cacheDir.empty())
    c.result = compiler::runPipeline(modelPath, *config, options);
  else
    c = compiler::runPipelineCached(modelPath, *config, options, compiler::CompileCache(cacheDir));
  Origin origin{c.reused, c.entry, modelPath, cacheDir, secondsSince(start)};
  std::optional<compiler::Graph> floatGraph;
  if (options.keep_float_graph) floatGraph = std::move(c.result.float_graph);
  return std::make_unique<Model>(std::move(config), std::move(c.result.graph), std::move(*c.result.compiled),
                                 std::move(floatGraph), std::move(origin));
}

std::unique_ptr<Model> Model::load(const std::string& sbinPath, std::shared_ptr<const isa::IsaConfig> config,
                                   const std::string& cacheDir) {
  const auto start = std::chrono::steady_clock::now();
  compiler::Artifact artifact = compiler::readArtifact(sbinPath);
  compiler::checkArtifactMatches(artifact, *config, sbinPath);
  Origin origin{false, "", sbinPath, cacheDir, secondsSince(start)};
  return std::make_unique<Model>(std::move(config), std::move(artifact.graph), std::move(artifact.model), std::nullopt,
                                 std::move(origin));
}

Model::Model(std::shared_ptr<const isa::IsaConfig> config, compiler::Graph quantized, compiler::CompiledModel compiled,
             std::optional<compiler::Graph> floatGraph, Origin origin)
    : config_(std::move(config)),
      graph_(std::move(quantized)),
      float_graph_(std::move(floatGraph)),
      origin_(std::move(origin)) {
  std::lock_guard lock(simulatorMutex());  // the session's simulator may elaborate the SystemC platform
  session_ = std::make_unique<runtime::Session>(*config_, std::move(compiled), graph_);
}

RunOutcome Model::run(const compiler::TensorMap& inputs, const runtime::RunOptions& options, bool measureAccuracy) {
  const auto start = std::chrono::steady_clock::now();
  RunOutcome out;
  out.params = config_->params();
  runtime::RunOptions withCache = options;
  withCache.host_jit_cache_dir = origin_.cache_dir;
  {
    std::lock_guard lock(simulatorMutex());
    out.result = session_->run(inputs, withCache);
  }
  out.run_seconds = secondsSince(start);
  if (options.timing_only)
    out.accuracy_note = "timing-only runs compute no data";
  else if (!float_graph_)
    out.accuracy_note = "a compiled .sbin holds no float model: compile the ONNX file to compare with it";
  else if (!measureAccuracy)
    out.accuracy_note = "not asked for (accuracy=False)";
  else
    out.accuracy = runtime::compareOutputs(runtime::floatReference(*float_graph_, inputs), out.result.outputs);
  return out;
}

void Model::save(const std::string& path) const { compiler::writeArtifact(path, *config_, graph_, session_->model()); }

}  // namespace systole::python
