// Algorithm: round the range inward to 2 MiB boundaries and madvise(MADV_HUGEPAGE) it; errors
// (no THP, not an anonymous mapping) are ignored, as the advice is only an optimisation.
#include "systole/isa/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace systole {

void adviseHugePages(const void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1), last = (begin + bytes) & ~(kHuge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace systole
