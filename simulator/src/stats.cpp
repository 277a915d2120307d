#include "systole/sim/stats.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <iomanip>

#include "systole/sim/energy.h"

namespace systole::sim {

std::string_view resourceName(Resource r) {
  switch (r) {
    case Resource::LoadDma: return "load_dma";
    case Resource::Array: return "array";
    case Resource::Vector: return "vector";
    case Resource::StoreDma: return "store_dma";
  }
  return "?";
}

std::string_view stallCauseName(StallCause c) {
  switch (c) {
    case StallCause::Token: return "token";
    case StallCause::QueueFull: return "queue_full";
    case StallCause::DramBandwidth: return "dram_bandwidth";
    case StallCause::BankConflict: return "bank_conflict";
    case StallCause::Hazard: return "hazard";
  }
  return "?";
}

void Counters::add(const Counters& o) {
  instructions += o.instructions;
  for (size_t r = 0; r < busy_cycles.size(); ++r) busy_cycles[r] += o.busy_cycles[r];
  for (size_t q = 0; q < stall_cycles.size(); ++q)
    for (size_t c = 0; c < stall_cycles[q].size(); ++c) stall_cycles[q][c] += o.stall_cycles[q][c];
  dram_bytes_read += o.dram_bytes_read;
  dram_bytes_written += o.dram_bytes_written;
  macs += o.macs;
  spad_bytes_read += o.spad_bytes_read;
  spad_bytes_written += o.spad_bytes_written;
  acc_bytes_read += o.acc_bytes_read;
  acc_bytes_written += o.acc_bytes_written;
  vector_elements += o.vector_elements;
  vector_macs += o.vector_macs;
}

uint64_t Counters::stallCycles(isa::Unit queue) const {
  uint64_t sum = 0;
  for (uint64_t c : stall_cycles[static_cast<size_t>(queue)]) sum += c;
  return sum;
}

void Stats::accumulate(const Stats& o) {
  if (isa.empty()) {
    *this = o;
    return;
  }
  cycles += o.cycles;
  Counters::add(o);
  for (size_t i = 0; i < by_opcode.size() && i < o.by_opcode.size(); ++i) by_opcode[i].second += o.by_opcode[i].second;
  regions.insert(regions.end(), o.regions.begin(), o.regions.end());
}

nlohmann::ordered_json unitsJson(const Counters& c, uint64_t cycles) {
  nlohmann::ordered_json units = nlohmann::ordered_json::object();
  for (int r = 0; r < kNumResources; ++r) {
    const uint64_t busy = c.busy_cycles[static_cast<size_t>(r)];
    units[std::string(resourceName(static_cast<Resource>(r)))] = {
        {"busy_cycles", busy}, {"utilization", cycles ? static_cast<double>(busy) / static_cast<double>(cycles) : 0.0}};
  }
  return units;
}

nlohmann::ordered_json sramJson(const Counters& c) {
  return {{"scratchpad_bytes_read", c.spad_bytes_read}, {"scratchpad_bytes_written", c.spad_bytes_written},
          {"accumulator_bytes_read", c.acc_bytes_read}, {"accumulator_bytes_written", c.acc_bytes_written},
          {"vector_elements", c.vector_elements},       {"vector_macs", c.vector_macs}};
}

nlohmann::ordered_json stallsJson(const Counters& c) {
  nlohmann::ordered_json stalls = nlohmann::ordered_json::object();
  for (int q = 0; q < isa::kNumUnits; ++q) {
    nlohmann::ordered_json causes;
    for (int k = 0; k < kNumStallCauses; ++k)
      causes[std::string(stallCauseName(static_cast<StallCause>(k)))] =
          c.stall_cycles[static_cast<size_t>(q)][static_cast<size_t>(k)];
    stalls[std::string(isa::unitName(static_cast<isa::Unit>(q)))] = causes;
  }
  return stalls;
}

std::string Stats::toJson() const {
  nlohmann::ordered_json j;
  j["schema"] = kStatsSchema;
  j["isa"] = isa;
  j["cycles"] = cycles;
  j["time_us"] = clock_mhz ? static_cast<double>(cycles) / static_cast<double>(clock_mhz) : 0.0;
  j["instructions"] = instructions;
  j["macs"] = macs;
  j["executed_mac_efficiency"] = executedMacEfficiency();
  j["units"] = unitsJson(*this, cycles);
  j["stall_cycles"] = stallsJson(*this);
  j["dma"] = {{"bytes_read", dram_bytes_read}, {"bytes_written", dram_bytes_written}};
  j["sram"] = sramJson(*this);
  j["energy"] = energyJson(energyOf(*this, cycles, cost));
  auto& ops = j["instructions_by_opcode"];
  ops = nlohmann::ordered_json::object();
  for (const auto& [name, count] : by_opcode) ops[name] = count;
  return j.dump(2) + "\n";
}

std::string Stats::summary() const {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1);
  out << "cycles: " << cycles << " ("
      << (clock_mhz ? static_cast<double>(cycles) / static_cast<double>(clock_mhz) : 0.0) << " us at " << clock_mhz
      << " MHz), instructions: " << instructions << ", MACs: " << macs << "\n";
  out << "executed-MAC efficiency: " << 100.0 * executedMacEfficiency()
      << "% (array MACs executed, padding and idle lanes included, / (cycles x PEs))\n";
  out << "busy:";
  for (int r = 0; r < kNumResources; ++r)
    out << " " << resourceName(static_cast<Resource>(r)) << " " << 100.0 * utilization(static_cast<Resource>(r)) << "%";
  out << "\nstalls (cycles):";
  for (int q = 0; q < isa::kNumUnits; ++q) {
    out << " " << isa::unitName(static_cast<isa::Unit>(q)) << "[";
    for (int c = 0; c < kNumStallCauses; ++c)
      out << (c ? " " : "") << stallCauseName(static_cast<StallCause>(c)) << "="
          << stall_cycles[static_cast<size_t>(q)][static_cast<size_t>(c)];
    out << "]";
  }
  out << "\nDRAM bytes: read " << dram_bytes_read << ", written " << dram_bytes_written << "\n";

  return out.str();
}

}  // namespace systole::sim
