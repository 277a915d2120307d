// First-fit allocation of DRAM regions (64-byte aligned) with coalescing release; tracks the peak.
#pragma once

#include <cstdint>
#include <map>

namespace systole::compiler {

class DramAllocator {
 public:
  DramAllocator(uint64_t base, uint64_t end) : base_(base) { free_[base] = end - base; }
  /// Throws systole::Error when no free region is large enough.
  uint64_t allocate(uint64_t bytes);
  /// Returns a region to the free list; an address not allocated is ignored.
  void release(uint64_t addr);
  /// Highest byte ever allocated, relative to the base.
  uint64_t peak() const { return peak_; }

 private:
  uint64_t base_, peak_ = 0;
  std::map<uint64_t, uint64_t> free_, used_;  // start -> size
};

}  // namespace systole::compiler
