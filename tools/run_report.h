// What `systole run` prints and writes beyond the simulator's own statistics: the accuracy of
// the INT8 model against the float model, the host operators (by type, and by name with the
// reason for any the NPU has a lowering for), the per-layer table, and the stats JSON.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "systole/compiler/pipeline.h"
#include "systole/runtime/accuracy.h"
#include "systole/runtime/session.h"
#include "systole/runtime/stats_report.h"

namespace systole::tools {

struct Accuracy {
  bool measured = false;
  std::string why_not = "--timing-only computes no data";  // when not measured
  std::vector<runtime::TensorAccuracy> outputs;            // model outputs vs the float model
  std::map<std::string, runtime::TensorAccuracy> values;   // NPU layer outputs (with --layers)
};

/// "accuracy against the float model ..." lines.
void printAccuracy(const Accuracy& accuracy);
/// "" if every output meets the thresholds (NaN: no threshold), else what failed.
std::string accuracyFailure(const Accuracy& accuracy, double minSqnr, double minCosine);
/// Host operators by type, and each one the NPU has a
/// lowering for, with the reason it ran on the host.
void printHostOperators(const compiler::Graph& quantized, const compiler::CompiledModel& model);

/// "weights: int4 in K of N matrix layers: NAME, ..." when a layer's weights are narrower than int8,
/// and the equalization's and the accumulator fit's lines.
void printWeightWidths(const compiler::Graph& quantized);
/// How many matrix layers the quantizer coarsened for a narrow accumulator (types.accumulator), as
/// a line; "" when none.
std::string accumulatorFitLine(const compiler::Graph& quantized);
/// "cross-layer equalization: ..." when it rescaled layers (saying when the float function
/// changed), else "".
std::string equalizationLine(const compiler::Graph& quantized);
/// The per-layer table: predicted and simulated cycles, utilization, and with accuracy figures
/// the SQNR and saturation of each layer's output.
void printLayers(const std::vector<runtime::LayerTiming>& layers, int64_t pes, const Accuracy& accuracy);
/// NPU + host + transfer cycles.
void printTotalCycles(const runtime::RunResult& result);
/// How the host operators ran (JIT-compiled or interpreted) and their wall time, with the JIT's
/// compile time and cache use.
void printHostTime(const runtime::RunResult& result);
/// Model MACs / (cycles x PEs) over the NPU layers.
void printUtilization(const std::vector<runtime::LayerTiming>& layers, uint64_t cycles, int64_t pes);
/// The stats document (runtime/stats_report.h, docs/stats.md) with the accuracy figures under
/// "accuracy" and each layer's where measured.
nlohmann::ordered_json statsJson(const runtime::RunResult& result, const Accuracy& accuracy, const isa::Params& p);

}  // namespace systole::tools
