// Compiled host code on disk: an llvm::ObjectCache whose entries are `DIR/KEY.host.o`, KEY being
// the hash the engine gives the module as its identifier (16 hex digits over the IR before
// optimization, the optimizer settings, the LLVM version and the host CPU). An entry is the
// object file followed by a trailer (its FNV-1a 64 hash and a magic), written to a temporary file
// and renamed into place, so processes may share the directory; an entry whose trailer does not
// match is removed, reported and rebuilt.
#pragma once

#include <memory>
#include <string>

#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/Support/MemoryBuffer.h"

namespace systole::hostjit {

class ObjectFileCache : public llvm::ObjectCache {
 public:
  explicit ObjectFileCache(std::string dir) : dir_(std::move(dir)) {}

  std::string entryPath(const std::string& key) const { return dir_ + "/" + key + ".host.o"; }

  /// Reads the entry for `key` and keeps it for getObject; true if there is a valid one.
  bool prefetch(const std::string& key);

  /// The prefetched object of the module whose identifier is its key (LLVM's compiler asks).
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module* m) override;
  /// Stores a freshly compiled object under the module's identifier.
  void notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef object) override;

  bool hit() const { return hit_; }
  const std::string& warning() const { return warning_; }

 private:
  std::string dir_, key_, warning_;
  std::unique_ptr<llvm::MemoryBuffer> pending_;
  bool hit_ = false;
};

}  // namespace systole::hostjit
