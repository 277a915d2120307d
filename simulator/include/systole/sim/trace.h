// Timeline of a run as Chrome/Perfetto trace-event JSON (load it at ui.perfetto.dev or
// chrome://tracing). The simulator records one slice per executed instruction (Trace); a
// TraceWriter lays one or more programs, and the steps between them, on one timeline: a step
// track (NPU programs, host operators, transfers), a layer track, one track per unit with the
// instructions named by mnemonic and their operands in `args`, and counters for the DRAM
// bandwidth and each queue's occupancy.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "systole/isa/encoding.h"

namespace systole::sim {

struct TraceSlice {
  uint32_t instruction;  // index in the program
  uint8_t track;         // isa::Unit
  uint64_t start, end;   // cycles
  uint64_t dispatch;     // cycle the controller placed it in its queue
};

class Trace {
 public:
  void clear() { slices_.clear(); }
  void add(const TraceSlice& s) { slices_.push_back(s); }
  const std::vector<TraceSlice>& slices() const { return slices_; }

  /// The trace of this one program (a TraceWriter at the instruction level).
  std::string toJson(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) const;

 private:
  std::vector<TraceSlice> slices_;
};

/// What a trace records: layers only (steps, layers and counters; a few MB for ResNet-50) or
/// every instruction as well.
enum class TraceLevel : uint8_t { Layers, Instructions };
/// "layers" or "instructions"; throws Error otherwise.
TraceLevel parseTraceLevel(std::string_view text);

/// The tracks above the units.
enum class TraceTrack : uint8_t { Steps, Layers };

class TraceWriter {
 public:
  TraceWriter(const isa::IsaConfig& isa, TraceLevel level);

  /// A named span, in cycles of the model's timeline, with `args` (an object, may be null).
  void addSpan(TraceTrack track, std::string_view name, std::string_view category, uint64_t start, uint64_t end,
               const nlohmann::ordered_json& args);
  /// A program's instructions (at the instruction level) and its counters, `offset` cycles into
  /// the timeline; `cycles` is the program's length.
  void addProgram(uint64_t offset, uint64_t cycles, const std::vector<isa::Instruction>& program,
                  const std::vector<TraceSlice>& timeline);
  /// The JSON document; the writer is empty afterwards.
  std::string finish();

 private:
  void beginEvent();
  void addInstructions(uint64_t offset, const std::vector<isa::Instruction>& program,
                       const std::vector<TraceSlice>& timeline);
  void addCounters(uint64_t offset, uint64_t cycles, const std::vector<isa::Instruction>& program,
                   const std::vector<TraceSlice>& timeline);
  std::string ts(uint64_t cycle) const;  // microseconds at the config's clock

  const isa::IsaConfig& isa_;
  TraceLevel level_;
  double usPerCycle_;
  std::string out_;
  bool first_ = true;
};

}  // namespace systole::sim
