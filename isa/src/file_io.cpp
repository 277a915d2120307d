#include "systole/isa/file_io.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "systole/isa/diagnostic.h"
#include "systole/isa/huge_pages.h"

namespace systole {

std::vector<uint8_t> readBinaryFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) throw Error(SourceLocation{path, 0, 0}, "cannot open file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(SourceLocation{path, 0, 0}, "cannot read file");
  std::vector<uint8_t> bytes;  // one allocation of the file's size
  reserveHuge(bytes, static_cast<size_t>(size));
  bytes.resize(static_cast<size_t>(size));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), size);
  if (!in) throw Error(SourceLocation{path, 0, 0}, "cannot read file");
  return bytes;
}

std::vector<uint8_t> readFileStart(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) throw Error(SourceLocation{path, 0, 0}, "cannot open file");
  std::vector<uint8_t> bytes(n);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(n));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

std::string readTextFile(const std::string& path) {
  auto bytes = readBinaryFile(path);
  return std::string(bytes.begin(), bytes.end());
}

void writeFileAtomic(const std::string& path, const void* data, size_t size) {
  writeFileAtomic(
      path, [&](std::ostream& out) { out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size)); });
}

void writeFileAtomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  // Unique per process and call, so writers racing on one path (processes sharing the compile
  // cache) each rename a whole file into place and the last one wins.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  std::error_code ignored;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(SourceLocation{path, 0, 0}, "cannot write file");
    try {
      write(out);
    } catch (...) {
      out.close();
      std::filesystem::remove(tmp, ignored);
      throw;
    }
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ignored);
      throw Error(SourceLocation{path, 0, 0}, "write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ignored);
    throw Error(SourceLocation{path, 0, 0}, "cannot write file");
  }
}

}  // namespace systole
