// The compiler's one path from an ONNX model to NPU programs: an ordered table of stages,
//   graph (import) -> opt (graph passes) -> quant (calibrate, quantize)
//   -> tiles (partition into NPU runs and host operators, lower each run through the back end's
//   passes: compileModel) -> memory -> schedule (the same plan printed after those passes) -> asm,
// each with a name, a help line, what it runs and how it prints its result (`--emit=STAGE`).
// `systole compile`, `systole run` and the C++ API all call runPipeline with a PipelineOptions,
// so the same options give the same programs everywhere (tested). Adding a stage is one row of
// the table in pipeline.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "systole/compiler/backend.h"
#include "systole/compiler/graph.h"
#include "systole/compiler/onnx_import.h"
#include "systole/compiler/passes.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/config.h"

namespace systole::compiler {

struct StageInfo;
struct PipelineResult;

/// Every option of every stage. The defaults are the defaults of every entry point.
struct PipelineOptions {
  /// graph: shapes binding the inputs' symbolic dimensions (--shape).
  ImportOptions import;
  /// opt: the passes to run, in order; empty = defaultPipeline().
  std::vector<std::string> passes;
  /// opt: Graph::verify() and the shape check after every pass (always on in debug builds).
  bool verify_each = false;
  /// opt: called after each pass (--print-after-all, --time-passes).
  std::function<void(const PassInfo& pass, const Graph& g, double seconds)> after_pass;

  /// quant: method, percentile, jobs (calibration threads), progress, and num_samples = how many
  /// calibration samples to use (0: kDefaultCalibrationSamples random inputs, or every sample of
  /// calibration_dir).
  QuantOptions quant;
  /// quant: a directory of .npy samples (loadCalibrationDir); empty = seeded random inputs.
  std::string calibration_dir;
  /// quant: calibration arrays held in memory (calibrationSamples; the Python API), used instead
  /// of calibration_dir and random inputs when not empty.
  std::vector<std::pair<std::string, NpyArray>> calibration_arrays;
  /// quant: the seed of the random calibration inputs. Not the seed of a run's inputs.
  uint64_t calibration_seed = 0;
  /// quant: the weights' width (--precision): "" = the config's default (the first of
  /// types.weight), "int8" or "int4" for every matrix layer (the config must offer it), "auto" =
  /// per layer, the narrowest the config offers where the outputs keep `min_cosine` against the
  /// float graph (QuantOptions::search_widths).
  std::string precision;
  double min_cosine = 0.99;
  /// quant: keep a copy of the optimized float graph in PipelineResult::float_graph (what `run`
  /// measures accuracy against). `compile` does not need it, and it is as big as the model.
  bool keep_float_graph = true;

  /// tiles: --min-npu-macs, keep_intermediates (--check-intermediates).
  LowerOptions lower;

  /// Called before each stage that runs something (progress lines).
  std::function<void(const StageInfo& stage)> before_stage;
  /// Called after each stage runs, with its wall-clock time (--time-passes, summaries).
  std::function<void(const StageInfo& stage, const PipelineResult& result, double seconds)> after_stage;
};

inline constexpr int kDefaultCalibrationSamples = 8;

/// What the stages have produced so far.
struct PipelineResult {
  std::string model_path;
  Graph graph;                                          // as imported, then optimized, then quantized, in place
  Graph float_graph;                                    // after quant: the optimized float graph it quantized (if kept)
  QuantSummary quant;                                   // after quant
  size_t calibration_samples = 0;                       // after quant: how many samples calibration used
  std::optional<CompiledModel> compiled;                // after tiles: NPU programs and host operators
  std::string target_stage;                             // the stage runPipeline runs to (empty: all)
  std::string last_stage;                               // the last stage that ran
  std::vector<std::pair<std::string, double>> seconds;  // wall-clock time of each stage that ran

  /// Wall-clock time of one stage (0 if it did not run), and of all stages that ran.
  double secondsOf(std::string_view stage) const;
  double totalSeconds() const;
};

/// One row of the stage table.
struct StageInfo {
  std::string_view name;   // --emit=name
  std::string_view help;   // one line, for --help
  std::string_view label;  // what --time-passes calls its time
  /// Advances the result by this stage (nullptr: the stage only prints what earlier ones made).
  void (*run)(PipelineResult& result, const isa::IsaConfig& isa, const PipelineOptions& options);
  /// The result as text, as `--emit=name` writes it.
  std::string (*text)(const PipelineResult& result, const isa::IsaConfig& isa);
};

/// The stages, in order.
const std::vector<StageInfo>& stageTable();
/// nullptr if no stage has that name.
const StageInfo* findStage(std::string_view name);

/// Runs the stages up to and including `last` (empty: all of them). Throws systole::Error on bad
/// input; an error without a location is reported against the model file.
PipelineResult runPipeline(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options,
                           std::string_view last = {});

/// The text of the last stage that ran (`--emit`).
std::string stageText(const PipelineResult& result, const isa::IsaConfig& isa);

/// The one NPU program of a compiled model whose only host operators are the QuantizeLinear at
/// its inputs and the DequantizeLinear at its outputs (what a .sbin holds). Otherwise throws
/// systole::Error naming the operator that runs on the host between NPU operators and why.
const CompiledProgram& singleProgram(const PipelineResult& result, const isa::IsaConfig& isa,
                                     const PipelineOptions& options);

}  // namespace systole::compiler
