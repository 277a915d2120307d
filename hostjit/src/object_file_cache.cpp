// Algorithm: entry = object bytes ++ fnv1a64(object bytes) (8 bytes, little-endian) ++ kMagic;
// read checks the size, the magic and the hash before handing the object to LLVM.
#include "object_file_cache.h"

#include <cstring>
#include <filesystem>

#include "llvm/IR/Module.h"
#include "systole/isa/config.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

namespace systole::hostjit {

namespace {
constexpr char kMagic[8] = {'S', 'Y', 'S', 'H', 'J', 'I', 'T', '1'};
constexpr size_t kTrailer = 16;
}  // namespace

bool ObjectFileCache::prefetch(const std::string& key) {
  key_ = key;
  pending_.reset();
  const std::string path = entryPath(key);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return false;
  std::vector<uint8_t> bytes;
  try {
    bytes = readBinaryFile(path);
  } catch (const Error&) {
    return false;
  }
  const size_t size = bytes.size() - (bytes.size() >= kTrailer ? kTrailer : 0);
  uint64_t stored = 0;
  if (bytes.size() >= kTrailer) std::memcpy(&stored, bytes.data() + size, 8);
  if (bytes.size() < kTrailer || std::memcmp(bytes.data() + size + 8, kMagic, 8) != 0 ||
      stored != isa::fnv1a64(bytes.data(), size)) {
    std::filesystem::remove(path, ec);
    warning_ = path + ": warning: corrupt host code cache entry removed; the host operators are compiled again";
    return false;
  }
  pending_ =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), size), path);
  return true;
}

std::unique_ptr<llvm::MemoryBuffer> ObjectFileCache::getObject(const llvm::Module* m) {
  if (!pending_ || m->getModuleIdentifier() != key_) return nullptr;
  hit_ = true;
  return std::move(pending_);
}

void ObjectFileCache::notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef object) {
  const std::string path = entryPath(m->getModuleIdentifier());
  const uint64_t hash = isa::fnv1a64(object.getBufferStart(), object.getBufferSize());
  try {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    writeFileAtomic(path, [&](std::ostream& out) {
      out.write(object.getBufferStart(), static_cast<std::streamsize>(object.getBufferSize()));
      out.write(reinterpret_cast<const char*>(&hash), 8);
      out.write(kMagic, 8);
    });
  } catch (const Error& e) {
    warning_ = path + ": warning: host code not stored in the cache: " + e.message();
  }
}

}  // namespace systole::hostjit
