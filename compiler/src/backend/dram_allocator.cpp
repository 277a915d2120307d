#include "dram_allocator.h"

#include <algorithm>
#include <iterator>

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

uint64_t DramAllocator::allocate(uint64_t bytes) {
  bytes = (bytes + 63) & ~uint64_t{63};
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (it->second >= bytes) {
      const uint64_t addr = it->first, left = it->second - bytes;
      free_.erase(it);
      if (left) free_[addr + bytes] = left;
      used_[addr] = bytes;
      peak_ = std::max(peak_, addr + bytes - base_);
      return addr;
    }
  throw Error("the activations do not fit in DRAM");
}

void DramAllocator::release(uint64_t addr) {
  auto it = used_.find(addr);
  if (it == used_.end()) return;
  uint64_t start = addr, size = it->second;
  used_.erase(it);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += size;
      return;
    }
  }
  free_[start] = size;
}

}  // namespace systole::compiler
