// Big buffers (a compiled model's bytes, its decoded instructions) backed by transparent huge
// pages where the kernel offers them (`madvise` mode): on the virtual machines this project runs
// on, a 4 KiB page fault costs microseconds, so first touching 100 MB page by page took longer
// than simulating the program. Only a hint: without THP nothing changes.
#pragma once

#include <cstddef>
#include <vector>

namespace systole {

/// Asks for huge pages over the 2 MiB-aligned part of [data, data + bytes) (nothing below 2 MiB).
/// Call it before the memory is first written: pages already touched stay small.
void adviseHugePages(const void* data, size_t bytes);

/// `v.reserve(n)`, with the new storage advised to use huge pages.
template <typename T>
void reserveHuge(std::vector<T>& v, size_t n) {
  v.reserve(n);
  adviseHugePages(v.data(), n * sizeof(T));
}

}  // namespace systole
