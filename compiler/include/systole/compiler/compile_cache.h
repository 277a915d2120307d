// The compile cache: compiled artifacts (.sbin, artifact.h) stored under a key that covers
// everything the program depends on, so `systole run` (and any C++ caller) can skip calibration,
// quantization and lowering when nothing changed. The key hashes
//   - the model file's bytes,
//   - the config after --set overrides (IsaConfig::hash),
//   - every PipelineOptions field that changes the program: input shapes, passes, calibration
//     (method, percentile, sample count, seed, and the bytes of every file of the calibration
//     directory), min_npu_macs, keep_intermediates,
//   - the compiler itself: the running executable's size and modification time, so a rebuilt
//     compiler never reuses programs an older one made.
// Entries are written to a temporary file and renamed into place (processes may share the
// cache); a corrupt or truncated entry fails the .sbin checksum and is rebuilt.
#pragma once

#include <optional>
#include <string>

#include "systole/compiler/artifact.h"
#include "systole/compiler/pipeline.h"

namespace systole::compiler {

/// $XDG_CACHE_HOME/systole, or $HOME/.cache/systole; empty if neither variable is set.
std::string defaultCacheDir();

/// 16 hex digits: the hash described above.
std::string compileCacheKey(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options);

class CompileCache {
 public:
  explicit CompileCache(std::string dir = defaultCacheDir()) : dir_(std::move(dir)) {}

  /// The entry's file (it may not exist).
  std::string entryPath(const std::string& key) const { return dir_ + "/" + key + ".sbin"; }

  /// The entry for `key` if there is a valid one. A corrupt entry, or one for another config, is
  /// removed and `warning` is set to "PATH: warning: ..." saying why (the caller rebuilds it).
  std::optional<Artifact> load(const std::string& key, const isa::IsaConfig& isa, std::string& warning) const;

  /// Stores an entry atomically; returns its path. Throws Error if it cannot be written.
  std::string store(const std::string& key, const isa::IsaConfig& isa, const Graph& quantized, const CompiledModel& model) const;

 private:
  std::string dir_;
};

}  // namespace systole::compiler
