// Algorithm: each component is a counter (or a sum of two) times its per-event energy; nothing
// is estimated here that the simulator did not count.
#include "systole/sim/energy.h"

#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>

#include "systole/isa/config.h"
#include "systole/sim/stats.h"

namespace systole::sim {

namespace {

double times(uint64_t count, double pj) { return static_cast<double>(count) * pj; }

}  // namespace

Energy energyOf(const Counters& c, uint64_t cycles, const isa::CostModel& m) {
  Energy e;
  e.mac = times(c.macs, m.mac_pj * m.mac_energy_scale);
  e.scratchpad = times(c.spad_bytes_read, m.scratchpad_read_pj_per_byte) +
                 times(c.spad_bytes_written, m.scratchpad_write_pj_per_byte);
  e.accumulator = times(c.acc_bytes_read, m.accumulator_read_pj_per_byte) +
                  times(c.acc_bytes_written, m.accumulator_write_pj_per_byte);
  e.dram = times(c.dram_bytes_read, m.dram_read_pj_per_byte) + times(c.dram_bytes_written, m.dram_write_pj_per_byte);
  e.vector = times(c.vector_elements, m.vector_op_pj) + times(c.vector_macs, m.mac_pj * m.mac_energy_scale);
  e.leakage = times(cycles, m.leakage_pj_per_cycle);
  return e;
}

nlohmann::ordered_json energyJson(const Energy& e) {
  return {{"total_pj", e.total()},           {"mac_pj", e.mac},   {"scratchpad_pj", e.scratchpad},
          {"accumulator_pj", e.accumulator}, {"dram_pj", e.dram}, {"vector_pj", e.vector},
          {"leakage_pj", e.leakage}};
}

std::string formatEnergy(double pj) {
  static constexpr const char* kUnits[] = {"pJ", "nJ", "uJ", "mJ", "J"};
  constexpr double kStep = 1000.0;
  size_t unit = 0;
  while (pj >= kStep && unit + 1 < std::size(kUnits)) pj /= kStep, ++unit;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4g %s", pj, kUnits[unit]);
  return buf;
}

std::string energySummary(const Energy& e) {
  const double total = e.total();
  const auto pct = [&](double part) { return total > 0 ? 100.0 * part / total : 0.0; };
  char buf[192];
  std::snprintf(buf, sizeof buf, " (MAC %.0f%%, SRAM %.0f%%, DRAM %.0f%%, vector %.0f%%, leakage %.0f%%)", pct(e.mac),
                pct(e.scratchpad + e.accumulator), pct(e.dram), pct(e.vector), pct(e.leakage));
  return "energy: " + formatEnergy(total) + buf;
}

std::string energyAreaLine(const Stats& s, const isa::Params& p) {
  char buf[48];
  std::snprintf(buf, sizeof buf, ", area: %.2f mm^2", isa::areaOf(p).total());
  return energySummary(energyOf(s, s.cycles, p.cost)) + buf;
}

}  // namespace systole::sim
