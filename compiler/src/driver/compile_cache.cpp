#include "systole/compiler/compile_cache.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

namespace fs = std::filesystem;

/// FNV-1a over a sequence of length-prefixed items (so "ab","c" and "a","bc" differ).
class KeyHash {
 public:
  void bytes(const void* data, size_t size) {
    raw(&size, sizeof size);
    raw(data, size);
  }
  void text(std::string_view s) { bytes(s.data(), s.size()); }
  void number(uint64_t v) { bytes(&v, sizeof v); }
  void real(double v) { bytes(&v, sizeof v); }
  /// A file's contents, read in chunks (a model can be hundreds of MB).
  void file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(SourceLocation{path, 0, 0}, "cannot open file");
    std::vector<char> chunk(1 << 20);
    uint64_t total = 0;
    while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
      raw(chunk.data(), static_cast<size_t>(in.gcount()));
      total += static_cast<uint64_t>(in.gcount());
    }
    number(total);
  }
  uint64_t value() const { return h_; }

 private:
  void raw(const void* data, size_t size) { h_ = isa::fnv1a64(data, size, h_); }
  uint64_t h_ = isa::fnv1a64(nullptr, 0);
};

/// The compiler's identity: the running executable's size and modification time (a rebuild or
/// an upgrade changes them; hashing a large binary's bytes on every run would cost more).
/// The file holding this compiler's code: the executable that links it statically, or the shared
/// object that does (the Python module, whose process's executable is the Python interpreter).
void addCompilerIdentity(KeyHash& h) {
  Dl_info info{};
  const bool found =
      ::dladdr(reinterpret_cast<void*>(&defaultCacheDir), &info) != 0 && info.dli_fname && *info.dli_fname;
  struct stat st {};
  if (::stat(found ? info.dli_fname : "/proc/self/exe", &st) != 0) return;
  h.number(static_cast<uint64_t>(st.st_size));
  h.number(static_cast<uint64_t>(st.st_mtim.tv_sec));
  h.number(static_cast<uint64_t>(st.st_mtim.tv_nsec));
}

/// A .npz file, or every file of a directory by its relative path and contents.
void addCalibrationData(KeyHash& h, const std::string& path) {
  h.text(path.empty() ? "random" : "data");
  if (path.empty() || !fs::is_directory(path)) {
    if (!path.empty()) h.file(path);
    return;
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(path))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    h.text(fs::relative(file, path).string());
    h.file(file.string());
  }
}

}  // namespace

std::string defaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/systole";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/systole";
  return "";
}

std::string compileCacheKey(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options) {
  KeyHash h;
  h.text("systole compile cache 1");
  addCompilerIdentity(h);
  h.file(modelPath);
  h.number(isa.hash());  // the config's bytes with the --set overrides
  for (const auto& [name, shape] : options.import.input_shapes) {
    h.text(name);
    for (int64_t d : shape) h.number(static_cast<uint64_t>(d));
  }
  h.number(options.passes.size());
  for (const auto& pass : options.passes) h.text(pass);
  h.number(static_cast<uint64_t>(options.quant.method));
  h.real(options.quant.percentile);
  h.number(static_cast<uint64_t>(options.quant.num_samples));
  h.text(options.precision);
  h.real(options.min_cosine);
  h.number(static_cast<uint64_t>(options.quant.search_samples));
  h.real(options.quant.smoothing);
  h.number(static_cast<uint64_t>(options.quant.equalization));
  h.number(static_cast<uint64_t>(options.quant.bias_correction));
  h.number(options.calibration_seed);
  addCalibrationData(h, options.calibration_dir);
  h.number(options.calibration_arrays.size());
  for (const auto& [name, array] : options.calibration_arrays) {
    h.text(name);
    h.number(static_cast<uint64_t>(array.dtype));
    h.number(array.shape.size());
    for (int64_t d : array.shape) h.number(static_cast<uint64_t>(d));
    h.bytes(array.bytes.data(), array.bytes.size());
  }
  h.number(static_cast<uint64_t>(options.lower.min_npu_macs));
  h.number(options.lower.keep_intermediates ? 1 : 0);
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(h.value()));
  return key;
}

std::optional<Artifact> CompileCache::load(const std::string& key, const isa::IsaConfig& isa,
                                           std::string& warning) const {
  const std::string path = entryPath(key);
  if (!fs::exists(path)) return std::nullopt;
  try {
    Artifact artifact = readArtifact(path);
    checkArtifactMatches(artifact, isa, path);
    return artifact;
  } catch (const Error& e) {
    warning = path + ": warning: unusable compile cache entry (" + e.message() + "); rebuilding it";
    std::error_code ignored;
    fs::remove(path, ignored);
    return std::nullopt;
  }
}

std::string CompileCache::store(const std::string& key, const isa::IsaConfig& isa, const Graph& quantized,
                                const CompiledModel& model) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw Error(SourceLocation{dir_, 0, 0}, "cannot create the compile cache directory: " + ec.message());
  const std::string path = entryPath(key);
  writeArtifact(path, isa, quantized, model);
  return path;
}

CachedCompile runPipelineCached(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options,
                                const CompileCache& cache) {
  CachedCompile out;
  const std::string key = compileCacheKey(modelPath, isa, options);
  if (auto artifact = cache.load(key, isa, out.warning)) {
    if (options.keep_float_graph) {
      out.result = runPipeline(modelPath, isa, options, "opt");
      out.result.float_graph = std::move(out.result.graph);
    }
    out.result.model_path = modelPath;
    out.result.graph = std::move(artifact->graph);
    out.result.compiled = std::move(artifact->model);
    out.reused = true;
    out.entry = cache.entryPath(key);
    return out;
  }
  out.result = runPipeline(modelPath, isa, options);
  try {
    out.entry = cache.store(key, isa, out.result.graph, *out.result.compiled);
  } catch (const Error& e) {  // a read-only or full cache must not fail the compile
    if (!out.warning.empty()) out.warning += "\n";
    out.warning += cache.entryPath(key) + ": warning: not stored in the compile cache (" + e.message() + ")";
  }
  return out;
}

}  // namespace systole::compiler
