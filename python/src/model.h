// A compiled model as the Python API holds it: the config it was compiled for, the quantized
// graph, the float graph (to measure accuracy; absent for a loaded .sbin), and a runtime session
// on the simulator. Runs take and give HostTensors; module.cpp converts them from and to NumPy.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "systole/compiler/compile_cache.h"
#include "systole/runtime/accuracy.h"
#include "systole/runtime/session.h"

namespace systole::python {

/// How the model was obtained.
struct Origin {
  bool from_cache = false;  // the compiled artifact was reused from the compile cache
  std::string cache_entry;  // the cache entry read or stored (empty: none)
  std::string path;         // the ONNX model or the .sbin
  std::string cache_dir;    // the compile cache it went through (also keeps the JIT-compiled host code); empty: none
  double compile_seconds = 0;
};

/// A run's results: the runtime's, and the INT8 outputs' accuracy against the float model.
struct RunOutcome {
  runtime::RunResult result;
  std::vector<runtime::TensorAccuracy> accuracy;  // empty when not measured
  std::string accuracy_note;                      // why not, when not measured
  isa::Params params;                             // the config's, for the statistics document
  double run_seconds = 0;                         // wall clock of the run (simulation, host operators, check)
};

class Model {
 public:
  /// Compiles `modelPath` through the compile cache (or without it when `cacheDir` is empty).
  static std::unique_ptr<Model> compile(const std::string& modelPath, std::shared_ptr<const isa::IsaConfig> config,
                                        const compiler::PipelineOptions& options, const std::string& cacheDir);
  /// Loads a compiled .sbin; it must have been compiled for `config`.
  static std::unique_ptr<Model> load(const std::string& sbinPath, std::shared_ptr<const isa::IsaConfig> config,
                                     const std::string& cacheDir);

  Model(std::shared_ptr<const isa::IsaConfig> config, compiler::Graph quantized, compiler::CompiledModel compiled,
        std::optional<compiler::Graph> floatGraph, Origin origin);
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  /// Runs on the simulator. Runs are serialised process-wide: SystemC has one kernel per process.
  RunOutcome run(const compiler::TensorMap& inputs, const runtime::RunOptions& options, bool measureAccuracy);

  /// Writes the compiled artifact (.sbin), atomically.
  void save(const std::string& path) const;

  const isa::IsaConfig& config() const { return *config_; }
  std::shared_ptr<const isa::IsaConfig> sharedConfig() const { return config_; }
  const compiler::Graph& graph() const { return graph_; }
  const compiler::CompiledModel& compiled() const { return session_->model(); }
  const Origin& origin() const { return origin_; }

 private:
  std::shared_ptr<const isa::IsaConfig> config_;
  compiler::Graph graph_;
  std::optional<compiler::Graph> float_graph_;
  Origin origin_;
  std::unique_ptr<runtime::Session> session_;  // refers to *config_ and graph_
};

/// The lock every use of the simulator takes (SystemC is one kernel per process).
std::mutex& simulatorMutex();

}  // namespace systole::python
