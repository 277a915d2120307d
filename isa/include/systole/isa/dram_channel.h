// Occupancy of the DRAM data channel shared by every DMA stream. A transfer that needs the channel
// for N cycles from some cycle on takes the free slots from that cycle, possibly in several pieces
// (the channel interleaves requests from different DMA engines); it completes when its last piece
// does. Requests may arrive out of time order (the simulator grants the channel to the oldest
// instruction first, a younger one takes the cycles left free before or between): a calendar of
// busy intervals, not a single "busy until". It is short (retire() drops what no request can
// reach), so a sorted vector, not a tree.
#pragma once

#include <cstddef>
#include <cstdint>
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
  /// Occupies [start, end), a gap just before busy_[i]; leaves i at the interval holding it.
  void occupy(size_t& i, uint64_t start, uint64_t end);
  struct Interval {
    uint64_t start, end;  // [start, end)
  };
  std::vector<Interval> busy_;  // by start; disjoint, touching ones merged
};

}  // namespace systole::isa
