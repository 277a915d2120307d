#include "systole/isa/file_io.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "systole/isa/diagnostic.h"

namespace systole {

std::vector<uint8_t> readBinaryFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path)) throw Error(SourceLocation{path, 0, 0}, "cannot open file");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string readTextFile(const std::string& path) {
  auto bytes = readBinaryFile(path);
  return std::string(bytes.begin(), bytes.end());
}

void writeFileAtomic(const std::string& path, const void* data, size_t size) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(SourceLocation{path, 0, 0}, "cannot write file");
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      throw Error(SourceLocation{path, 0, 0}, "write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(SourceLocation{path, 0, 0}, "cannot write file");
  }
}

}  // namespace systole
