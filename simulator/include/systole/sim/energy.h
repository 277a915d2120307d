// Energy of a run or of one region of it: the simulator's event counters (sim/stats.h) times the
// config's per-event energies (isa/cost_model.h), by component. Additive: the energy of a sum of
// counters over a sum of cycles is the sum of the energies.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "systole/isa/cost_model.h"

namespace systole::sim {

struct Counters;
struct Stats;

/// pJ by component.
struct Energy {
  double mac = 0;          // array MACs x energy.mac_pj
  double scratchpad = 0;   // scratchpad bytes read and written
  double accumulator = 0;  // accumulator bytes read and written
  double dram = 0;         // DRAM bytes read and written
  double vector = 0;       // vector lane-elements
  double leakage = 0;      // cycles x energy.leakage_pj_per_cycle
  double total() const { return mac + scratchpad + accumulator + dram + vector + leakage; }
};

/// The energy of `c` over `cycles` cycles (the leakage's span).
Energy energyOf(const Counters& c, uint64_t cycles, const isa::CostModel& m);

/// {"total_pj": ..., "mac_pj": ..., "scratchpad_pj": ..., ...} (docs/stats.md).
nlohmann::ordered_json energyJson(const Energy& e);

/// "energy: 12.3 uJ (MAC 40%, SRAM 20%, DRAM 35%, vector 0%, leakage 5%)", in the unit (pJ .. J)
/// that puts the total in [1, 1000); SRAM is the scratchpad and the accumulator together.
/// `pj` in the unit that puts it in [1, 1000) (pJ, nJ, uJ, mJ or J), 4 significant digits: "14.5 mJ".
std::string formatEnergy(double pj);
std::string energySummary(const Energy& e);

/// The run's line: energySummary of its totals, then ", area: 1.84 mm^2" (isa::areaOf).
std::string energyAreaLine(const Stats& s, const isa::Params& p);

}  // namespace systole::sim
