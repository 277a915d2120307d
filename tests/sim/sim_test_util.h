// Helpers for simulator tests: shipped configs by name and running a program with int8 inputs.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "systole/isa/builder.h"
#include "systole/isa/config.h"
#include "systole/sim/memory.h"
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

/// One instruction of class `s` with `operands`, as a program builder encodes it.
inline isa::Instruction makeInstruction(const isa::IsaConfig& isa, isa::Semantics s,
                                        std::initializer_list<int64_t> operands) {
  isa::ProgramBuilder b(isa);
  return b.emit(s, operands);
}

/// Every scratchpad and accumulator row random (from `seed`) and marked written.
inline void fillRandomState(sim::MachineState& m, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int64_t r = 0; r < m.spad.rows(); ++r)
    for (int64_t j = 0; j < m.spad.lanes(); ++j) m.spad.row(r)[j] = static_cast<int8_t>(rng());
  for (int64_t r = 0; r < m.acc.rows(); ++r)
    for (int64_t j = 0; j < m.acc.lanes(); ++j) m.acc.row(r)[j] = static_cast<int32_t>(rng());
  m.spad.markWritten(0, m.spad.rows());
  m.acc.markWritten(0, m.acc.rows());
}

inline std::vector<uint8_t> bytesOf(const std::vector<int8_t>& v) { return {v.begin(), v.end()}; }
inline std::vector<int8_t> int8Of(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

}  // namespace systole::testing
