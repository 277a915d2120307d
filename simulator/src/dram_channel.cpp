// Algorithm: walk the busy intervals from the last one starting at or before the request, moving
// the candidate start past each interval it overlaps; insert the granted interval and merge it
// with neighbours it touches, so a saturated channel stays a single interval.
#include "systole/sim/dram_channel.h"

namespace systole::sim {

uint64_t DramChannel::reserve(uint64_t at, uint64_t cycles) {
  if (cycles == 0) return at;
  uint64_t start = at;
  auto it = busy_.upper_bound(start);
  if (it != busy_.begin()) {
    auto prev = std::prev(it);
    if (prev->second > start) start = prev->second;
  }
  while (it != busy_.end() && it->first < start + cycles) {
    start = std::max(start, it->second);
    ++it;
  }
  uint64_t end = start + cycles;
  // Merge with a neighbour that ends exactly at start and with one that begins exactly at end.
  auto next = busy_.lower_bound(start);
  if (next != busy_.end() && next->first == end) {
    end = next->second;
    next = busy_.erase(next);
  }
  if (next != busy_.begin()) {
    auto prev = std::prev(next);
    if (prev->second == start) {
      prev->second = end;
      return start;
    }
  }
  busy_.emplace(start, end);
  return start;
}

void DramChannel::retire(uint64_t cycle) {
  while (!busy_.empty() && busy_.begin()->second <= cycle) busy_.erase(busy_.begin());
}

}  // namespace systole::sim
