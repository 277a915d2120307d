// What the fuzz targets share: the shipped ISA configs (loaded once per process, from the source
// tree), the input as bytes or text, and triage output: with SYSTOLE_FUZZ_VERBOSE set, each target
// prints the error that rejected an input (run it on one file to see why).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/diagnostic.h"

namespace systole::fuzz {

/// The shipped config `name` (tiny, default, large, os16), or nullptr for any other name.
inline const isa::IsaConfig* shippedConfig(const std::string& name) {
  static const auto configs = [] {
    std::map<std::string, std::unique_ptr<isa::IsaConfig>> m;
    for (const char* n : {"tiny", "default", "large", "os16"})
      m[n] = std::make_unique<isa::IsaConfig>(
          isa::IsaConfig::load(SYSTOLE_SOURCE_DIR "/isa/configs/" + std::string(n) + ".yaml"));
    return m;
  }();
  auto it = configs.find(name);
  return it == configs.end() ? nullptr : it->second.get();
}

/// `default` with int16 activations (the lit tests' `--set types.activation=int16`).
inline const isa::IsaConfig& int16Config() {
  static const auto int16 =
      isa::IsaConfig::load(SYSTOLE_SOURCE_DIR "/isa/configs/default.yaml", {{"types.activation", "int16"}});
  return int16;
}

/// The config a program was built for: a shipped one, or int16Config(), matched by name and
/// content hash; nullptr if none.
inline const isa::IsaConfig* programConfig(const std::string& name, uint64_t hash) {
  if (const isa::IsaConfig* shipped = shippedConfig(name); shipped && shipped->hash() == hash) return shipped;
  const isa::IsaConfig& int16 = int16Config();
  return name == int16.params().name && int16.hash() == hash ? &int16 : nullptr;
}

inline std::string text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}
inline std::vector<uint8_t> bytes(const uint8_t* data, size_t size) { return std::vector<uint8_t>(data, data + size); }

/// Called with the error that rejected an input: printed only with SYSTOLE_FUZZ_VERBOSE set.
inline void rejected(const Error& e) {
  static const bool verbose = std::getenv("SYSTOLE_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::cerr << "rejected: " << e.what() << "\n";
}

}  // namespace systole::fuzz
