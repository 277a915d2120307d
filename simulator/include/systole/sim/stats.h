// Statistics of one simulated run. Each is declared once here with its unit; the JSON writer and
// the text summary read this struct.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "systole/isa/config.h"

namespace systole::sim {

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

struct Stats {
  std::string isa;
  int64_t clock_mhz = 0;
  int64_t array_pes = 0;                                     // array.rows * array.cols
  uint64_t cycles = 0;                                       // first dispatch to last completion
  uint64_t instructions = 0;
  std::vector<std::pair<std::string, uint64_t>> by_opcode;   // mnemonic -> count, config order
  std::array<uint64_t, kNumResources> busy_cycles{};         // cycles each resource worked
  std::array<std::array<uint64_t, kNumStallCauses>, isa::kNumUnits> stall_cycles{};  // [queue][cause]
  uint64_t dram_bytes_read = 0;                              // DRAM -> chip
  uint64_t dram_bytes_written = 0;                           // chip -> DRAM
  uint64_t macs = 0;                                         // multiply-accumulates of the array

  double utilization(Resource r) const {
    return cycles ? static_cast<double>(busy_cycles[static_cast<size_t>(r)]) / static_cast<double>(cycles) : 0.0;
  }
  /// Executed array MACs / (cycles * PEs), padding and unused lanes included: how busy the array
  /// was, not how much of it served the model (that is model MACs / (cycles * PEs)).
  double executedMacEfficiency() const {
    return cycles && array_pes ? static_cast<double>(macs) / (static_cast<double>(cycles) * static_cast<double>(array_pes)) : 0.0;
  }

  /// Adds another run's statistics, as if it ran after this one.
  void accumulate(const Stats& other);

  std::string toJson() const;
  std::string summary() const;  // a few human-readable lines
};

}  // namespace systole::sim
