// Algorithm: walk the busy intervals from the request cycle, occupying each gap between them
// until the transfer's cycles are covered; an occupied gap merges with the intervals it touches,
// so a saturated channel stays one interval.
#include "systole/isa/dram_channel.h"

#include <algorithm>
#include <iterator>

namespace systole::isa {

uint64_t DramChannel::reserve(uint64_t at, uint64_t cycles) {
  if (cycles == 0) return at;
  // The first interval that starts after `at`; the one before it may cover `at`.
  size_t i = static_cast<size_t>(
      std::upper_bound(busy_.begin(), busy_.end(), at, [](uint64_t c, const Interval& b) { return c < b.start; }) -
      busy_.begin());
  uint64_t cursor = at, remaining = cycles;
  if (i > 0 && busy_[i - 1].end > cursor) cursor = busy_[i - 1].end;
  while (remaining > 0) {
    // The gap [cursor, gapEnd) lies between busy_[i - 1] (ending at or before cursor) and busy_[i].
    const uint64_t gapEnd = i == busy_.size() ? UINT64_MAX : busy_[i].start;
    const uint64_t take = std::min(remaining, gapEnd - cursor);
    if (take > 0) {
      occupy(i, cursor, cursor + take);  // merges: busy_[i] is now the interval past the gap, or the end
      remaining -= take;
      cursor += take;
    }
    if (remaining > 0) {
      // The gap is full: jump past the interval that closes it (after occupy, the one holding cursor).
      while (i < busy_.size() && busy_[i].end <= cursor) ++i;
      if (i < busy_.size() && busy_[i].start <= cursor) cursor = busy_[i++].end;
    }
  }
  return cursor;
}

void DramChannel::occupy(size_t& i, uint64_t start, uint64_t end) {
  // busy_[i - 1] ends at or before `start`, busy_[i] starts at or after `end`.
  const bool joinsPrev = i > 0 && busy_[i - 1].end == start;
  const bool joinsNext = i < busy_.size() && busy_[i].start == end;
  if (joinsPrev && joinsNext) {
    busy_[i - 1].end = busy_[i].end;
    busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
  } else if (joinsPrev) {
    busy_[i - 1].end = end;
    --i;
  } else if (joinsNext) {
    busy_[i].start = start;
  } else {
    busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), Interval{start, end});
  }
}

void DramChannel::retire(uint64_t cycle) {
  const auto kept = std::find_if(busy_.begin(), busy_.end(), [cycle](const Interval& b) { return b.end > cycle; });
  busy_.erase(busy_.begin(), kept);
}

}  // namespace systole::isa
