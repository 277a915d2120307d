// Timeline of a run: one slice per executed instruction on its unit's track, written as
// Chrome/Perfetto trace-event JSON (load it at ui.perfetto.dev or chrome://tracing).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "systole/isa/encoding.h"

namespace systole::sim {

struct TraceSlice {
  uint32_t instruction;  // index in the program
  uint8_t track;         // isa::Unit
  uint64_t start, end;   // cycles
};

class Trace {
 public:
  void clear() { slices_.clear(); }
  void add(const TraceSlice& s) { slices_.push_back(s); }
  const std::vector<TraceSlice>& slices() const { return slices_; }

  /// Chrome trace-event JSON; timestamps in microseconds at the config's clock.
  std::string toJson(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) const;

 private:
  std::vector<TraceSlice> slices_;
};

}  // namespace systole::sim
