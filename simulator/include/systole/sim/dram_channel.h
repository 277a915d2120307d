// Occupancy of the DRAM data channel shared by every DMA stream. A transfer asks for the channel
// at a cycle for some number of cycles; it gets the earliest free slot at or after that cycle.
// Because the units run temporally decoupled, requests may arrive out of time order; a calendar
// of busy intervals (rather than a single "busy until") keeps them from delaying each other
// spuriously.
#pragma once

#include <cstdint>
#include <cstddef>
#include <map>

namespace systole::sim {

class DramChannel {
 public:
  /// Reserves `cycles` cycles of the channel at or after `at`; returns the start cycle granted.
  uint64_t reserve(uint64_t at, uint64_t cycles);
  /// Forgets intervals that end at or before `cycle` (no request can come before it any more).
  void retire(uint64_t cycle);
  void clear() { busy_.clear(); }
  size_t intervals() const { return busy_.size(); }

 private:
  std::map<uint64_t, uint64_t> busy_;  // start -> end (exclusive), disjoint, merged when touching
};

}  // namespace systole::sim
