#include <algorithm>
#include <cstring>

#include "systole/sim/memory.h"

namespace systole::sim {

PagedDram::PagedDram(uint64_t size) : size_(size), pages_((size + kPageSize - 1) >> kPageBits) {}

void PagedDram::clear() {
  for (auto& p : pages_) p.reset();
}

void PagedDram::checkRange(uint64_t addr, uint64_t len) const {
  if (addr > size_ || len > size_ - addr)
    throw FaultCause{"DRAM access [" + std::to_string(addr) + ", " + std::to_string(addr + len) +
                     ") out of range: the DRAM has " + std::to_string(size_) + " bytes"};
}

uint8_t* PagedDram::page(uint64_t addr) {
  auto& pg = pages_[addr >> kPageBits];
  if (!pg) pg = std::make_unique<Page>(Page{});
  return pg->data();
}

void PagedDram::read(uint64_t addr, uint8_t* out, uint64_t len) const {
  checkRange(addr, len);
  while (len > 0) {
    const uint64_t page = addr >> kPageBits, offset = addr & (kPageSize - 1);
    const uint64_t chunk = std::min(len, kPageSize - offset);
    if (pages_[page])
      std::memcpy(out, pages_[page]->data() + offset, chunk);
    else
      std::memset(out, 0, chunk);
    addr += chunk;
    out += chunk;
    len -= chunk;
  }
}

void PagedDram::write(uint64_t addr, const uint8_t* in, uint64_t len) {
  checkRange(addr, len);
  while (len > 0) {
    const uint64_t page = addr >> kPageBits, offset = addr & (kPageSize - 1);
    const uint64_t chunk = std::min(len, kPageSize - offset);
    if (!pages_[page]) pages_[page] = std::make_unique<Page>(Page{});
    std::memcpy(pages_[page]->data() + offset, in, chunk);
    addr += chunk;
    in += chunk;
    len -= chunk;
  }
}

}  // namespace systole::sim
