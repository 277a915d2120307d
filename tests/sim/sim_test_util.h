// Helpers for simulator tests: shipped configs by name and running a program with int8 inputs.
#pragma once

#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/sim/simulator.h"

namespace systole::testing {

inline const std::vector<std::string>& shippedConfigs() {
  static const std::vector<std::string> names = {"tiny", "default", "large", "os16"};
  return names;
}

inline const isa::IsaConfig& shippedConfig(const std::string& name) {
  static std::map<std::string, isa::IsaConfig> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, isa::IsaConfig::load(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + name + ".yaml"))
             .first;
  return it->second;
}

inline std::vector<uint8_t> bytesOf(const std::vector<int8_t>& v) { return {v.begin(), v.end()}; }
inline std::vector<int8_t> int8Of(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

}  // namespace systole::testing
