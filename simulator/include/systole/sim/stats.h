// Statistics of one simulated run. Each is declared once here with its unit; the JSON writer and
// the text summary read this struct.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "systole/isa/config.h"

namespace systole::sim {

/// The version of the stats JSON's layout (docs/stats.md); bumped when a field changes meaning.
inline constexpr std::string_view kStatsSchema = "systole.stats/2";

/// Hardware resources whose busy time is tracked.
enum class Resource : uint8_t { LoadDma, Array, Vector, StoreDma };
inline constexpr int kNumResources = 4;
std::string_view resourceName(Resource r);

/// Why an instruction started later than its queue could have started it.
/// Hazard: a compute instruction waited for a result (or the array's weights) of an earlier one
/// still in flight.
enum class StallCause : uint8_t { Token, QueueFull, DramBandwidth, BankConflict, Hazard };
inline constexpr int kNumStallCauses = 5;
std::string_view stallCauseName(StallCause c);

/// The additive counters, kept per region of the program (SimOptions::region_starts) and summed
/// into the run's totals, so the totals equal the sum over regions by construction.
struct Counters {
  uint64_t instructions = 0;
  std::array<uint64_t, kNumResources> busy_cycles{};                                 // cycles each resource worked
  std::array<std::array<uint64_t, kNumStallCauses>, isa::kNumUnits> stall_cycles{};  // [queue][cause]
  uint64_t dram_bytes_read = 0;                                                      // DRAM -> chip
  uint64_t dram_bytes_written = 0;                                                   // chip -> DRAM
  uint64_t macs = 0;                                     // multiply-accumulates of the array
  uint64_t spad_bytes_read = 0, spad_bytes_written = 0;  // scratchpad (sim/sram_traffic.h)
  uint64_t acc_bytes_read = 0, acc_bytes_written = 0;    // accumulator
  uint64_t vector_elements = 0;                          // lane-elements of vector instructions
  uint64_t vector_macs = 0;                              // multiply-accumulates of the vector unit (vector_mac)

  void add(const Counters& other);
  uint64_t stallCycles(isa::Unit queue) const;  // over every cause
};

/// One region of the program: a contiguous range of instructions (a compiled model's layer).
struct RegionStats {
  Counters counters;
  uint64_t first_start = UINT64_MAX;  // earliest start of its instructions, cycles from the run's start
  uint64_t last_end = 0;              // latest completion of its instructions
  bool ran() const { return first_start != UINT64_MAX; }
};

struct Stats : Counters {
  std::string isa;
  int64_t clock_mhz = 0;
  int64_t array_pes = 0;                                    // array.rows * array.cols
  uint64_t cycles = 0;                                      // first dispatch to last completion
  std::vector<std::pair<std::string, uint64_t>> by_opcode;  // mnemonic -> count, config order
  std::vector<RegionStats> regions;                         // per SimOptions::region_starts (one when none)
  isa::CostModel cost;                                      // the config's energy and area model

  double utilization(Resource r) const {
    return cycles ? static_cast<double>(busy_cycles[static_cast<size_t>(r)]) / static_cast<double>(cycles) : 0.0;
  }
  /// Executed array MACs / (cycles * PEs), padding and unused lanes included: how busy the array
  /// was, not how much of it served the model (that is model MACs / (cycles * PEs)).
  double executedMacEfficiency() const {
    return cycles && array_pes
               ? static_cast<double>(macs) / (static_cast<double>(cycles) * static_cast<double>(array_pes))
               : 0.0;
  }

  /// Adds another run's statistics, as if it ran after this one (its regions follow these).
  void accumulate(const Stats& other);

  std::string toJson() const;
  std::string summary() const;  // a few human-readable lines
};

/// The on-chip traffic counters: {"scratchpad_bytes_read": ..., ..., "vector_elements": ...}.
nlohmann::ordered_json sramJson(const Counters& c);

/// The counters as JSON objects: {"load_dma": {"busy_cycles": ...}, ...} and
/// {"load": {"token": ...}, ...}; `cycles` is the denominator of the utilizations.
nlohmann::ordered_json unitsJson(const Counters& c, uint64_t cycles);
nlohmann::ordered_json stallsJson(const Counters& c);

}  // namespace systole::sim
