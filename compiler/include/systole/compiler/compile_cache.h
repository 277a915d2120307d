// The compile cache: compiled artifacts (.sbin, artifact.h) stored under a key that covers
// everything the program depends on, so `systole run` (and any C++ caller) can skip calibration,
// quantization and lowering when nothing changed. The key hashes
//   - the model file's bytes,
//   - the config after --set overrides (IsaConfig::hash),
//   - every PipelineOptions field that changes the program: input shapes, passes, calibration
//     (method, percentile, sample count, seed, and the bytes of every file of the calibration
//     directory or of every in-memory calibration array), min_npu_macs, keep_intermediates,
//   - the compiler itself: the size and modification time of the file holding its code (the
//     executable, or the Python module), so a rebuilt compiler never reuses programs an older one made.
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
  std::string store(const std::string& key, const isa::IsaConfig& isa, const Graph& quantized,
                    const CompiledModel& model) const;

 private:
  std::string dir_;
};

/// What runPipelineCached did.
struct CachedCompile {
  /// The whole pipeline's result. On a hit: `graph` is the cached quantized graph, `compiled` its
  /// programs, `float_graph` the front end's graph (import + opt, the graph quantization started
  /// from; only with options.keep_float_graph), `seconds` the front end's times, `quant` empty.
  PipelineResult result;
  bool reused = false;  // a hit
  std::string entry;    // the entry read or stored (empty if nothing was stored)
  std::string warning;  // "PATH: warning: ..." lines: a corrupt entry rebuilt, an entry not stored
};

/// runPipeline(modelPath, isa, options) through the cache: reuses the entry for this model,
/// config and options, or compiles and stores one. Calibration, quantization and lowering run
/// only on a miss, so their callbacks (after_stage for "quant", quant.progress) are not called on
/// a hit.
CachedCompile runPipelineCached(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options,
                                const CompileCache& cache);

}  // namespace systole::compiler
