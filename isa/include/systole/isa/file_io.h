// Reading whole files and writing them atomically (temporary file + rename), so that a failed
// command never leaves a half-written output behind.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace systole {

std::string readTextFile(const std::string& path);             // throws Error "cannot open"
std::vector<uint8_t> readBinaryFile(const std::string& path);  // throws Error "cannot open"
/// The first `n` bytes of a file (fewer if it is shorter): a header, without reading the rest.
std::vector<uint8_t> readFileStart(const std::string& path, size_t n);
void writeFileAtomic(const std::string& path, const void* data, size_t size);
inline void writeFileAtomic(const std::string& path, const std::string& text) {
  writeFileAtomic(path, text.data(), text.size());
}
/// The same for a file written piece by piece by `write` (nothing is renamed into place if it throws).
void writeFileAtomic(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace systole
