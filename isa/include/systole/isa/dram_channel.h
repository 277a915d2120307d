// Occupancy of the DRAM data channel shared by every DMA stream. A transfer that needs the channel
// for N cycles from some cycle on takes the free slots from that cycle, possibly in several pieces
// (the channel interleaves requests from different DMA engines); it completes when its last piece
// does. Because the units run temporally decoupled, requests may arrive out of time order; a
// calendar of busy intervals (not a single "busy until") keeps that from adding spurious waits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace systole::isa {

class DramChannel {
 public:
  /// Occupies `cycles` free cycles of the channel at or after `at`; returns the cycle after the
  /// last one occupied (at + cycles when the channel was idle).
  uint64_t reserve(uint64_t at, uint64_t cycles);
  /// Forgets intervals that end at or before `cycle` (no request can come before it any more).
  void retire(uint64_t cycle);
  void clear() { busy_.clear(); }
  size_t intervals() const { return busy_.size(); }

 private:
  void occupy(uint64_t start, uint64_t end);
  std::map<uint64_t, uint64_t> busy_;  // start -> end (exclusive); disjoint, touching ones merged
  std::vector<std::pair<uint64_t, uint64_t>> pieces_;  // reserve()'s scratch, kept to save an allocation per call
};

}  // namespace systole::isa
