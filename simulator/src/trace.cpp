#include "systole/sim/trace.h"

#include <algorithm>
#include <tuple>
#include <nlohmann/json.hpp>

#include "systole/isa/assembler.h"

namespace systole::sim {

std::string Trace::toJson(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) const {
  const double usPerCycle = 1.0 / static_cast<double>(isa.params().clock_mhz);
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (int u = 0; u < isa::kNumUnits; ++u)
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", u},
                      {"args", {{"name", std::string(isa::unitName(static_cast<isa::Unit>(u)))}}}});
  auto sorted = slices_;
  // Slices starting in the same cycle are ordered by track and index, not by the order the host
  // happened to run the units in, so the trace depends only on the simulated timeline.
  std::sort(sorted.begin(), sorted.end(), [](const TraceSlice& a, const TraceSlice& b) {
    return std::tie(a.start, a.track, a.instruction) < std::tie(b.start, b.track, b.instruction);
  });
  for (const auto& s : sorted)
    events.push_back({{"name", isa::formatInstruction(isa, program[s.instruction])},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", s.track},
                      {"ts", static_cast<double>(s.start) * usPerCycle},
                      {"dur", static_cast<double>(s.end - s.start) * usPerCycle},
                      {"args", {{"index", s.instruction}, {"start_cycle", s.start}, {"cycles", s.end - s.start}}}});
  nlohmann::ordered_json j;
  j["traceEvents"] = events;
  j["displayTimeUnit"] = "ns";
  j["otherData"] = {{"isa", isa.params().name}};
  return j.dump() + "\n";
}

}  // namespace systole::sim
