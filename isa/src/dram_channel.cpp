// Algorithm: walk the busy intervals from the request cycle, taking each gap between them until
// the transfer's cycles are covered; record the taken pieces, merging intervals that touch so a
// saturated channel stays one interval.
#include "systole/isa/dram_channel.h"

#include <algorithm>
#include <iterator>
#include <vector>

namespace systole::isa {

void DramChannel::occupy(uint64_t start, uint64_t end) {
  auto next = busy_.lower_bound(start);
  if (next != busy_.end() && next->first == end) {
    end = next->second;
    next = busy_.erase(next);
  }
  if (next != busy_.begin()) {
    auto prev = std::prev(next);
    if (prev->second == start) {
      prev->second = end;
      return;
    }
  }
  busy_.emplace(start, end);
}

uint64_t DramChannel::reserve(uint64_t at, uint64_t cycles) {
  if (cycles == 0) return at;
  uint64_t cursor = at, remaining = cycles;
  auto it = busy_.upper_bound(cursor);
  if (it != busy_.begin() && std::prev(it)->second > cursor) cursor = std::prev(it)->second;
  std::vector<std::pair<uint64_t, uint64_t>>& pieces = pieces_;
  pieces.clear();
  while (remaining > 0) {
    const uint64_t gapEnd = it == busy_.end() ? UINT64_MAX : it->first;
    const uint64_t take = std::min(remaining, gapEnd - cursor);
    if (take > 0) {
      pieces.emplace_back(cursor, cursor + take);
      remaining -= take;
      cursor += take;
    }
    if (remaining > 0) {
      cursor = it->second;
      ++it;
    }
  }
  for (const auto& [s, e] : pieces) occupy(s, e);
  return cursor;
}

void DramChannel::retire(uint64_t cycle) {
  while (!busy_.empty() && busy_.begin()->second <= cycle) busy_.erase(busy_.begin());
}

}  // namespace systole::isa
