// A model's run on one timeline: host operators, host<->NPU transfers and NPU programs laid end
// to end in schedule order (they run serially), each NPU program's cycles attributed to its
// layers, and, when tracing, all of it written into one trace.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "systole/compiler/backend.h"
#include "systole/runtime/session.h"
#include "systole/sim/trace.h"

namespace systole::runtime {

/// The region starts that give each layer of `program` its own statistics (the first region
/// from instruction 0, so a prologue counts for the first layer and the epilogue for the last).
std::vector<uint32_t> layerRegionStarts(const compiler::CompiledProgram& program);

/// The layers of one program as they ran, from its statistics (one region per layer,
/// layerRegionStarts), `offset` cycles into the model's timeline.
std::vector<LayerTiming> attributeLayers(const std::vector<compiler::LayerReport>& reports, const sim::Stats& stats,
                                         uint64_t offset, size_t program);

class ModelTimeline {
 public:
  /// Traces when `trace` is set, at that level.
  ModelTimeline(const isa::IsaConfig& isa, std::optional<sim::TraceLevel> trace);

  uint64_t now() const { return now_; }
  void host(const HostStep& step);
  void transfer(const std::string& what, uint64_t cycles);
  /// Appends the program's layers (attributeLayers) to `layers` and advances past its cycles.
  void program(const compiler::CompiledProgram& program, const sim::SimResult& sim, std::vector<LayerTiming>& layers);
  /// The trace's JSON ("" when not tracing).
  std::string traceJson();

 private:
  const isa::IsaConfig& isa_;
  std::optional<sim::TraceWriter> trace_;
  uint64_t now_ = 0;
  size_t programs_ = 0;
};

}  // namespace systole::runtime
