// The race checker: are a program's scratchpad and accumulator accesses ordered by its dependency
// tokens? Two accesses to one row from different queues, at least one a write, must be ordered by
// happens-before (program order within a queue; a token's push before the pop that takes it),
// otherwise the program is correct only for the timing it happened to get: a deeper queue, a
// faster DMA or another config may reorder them. `systole sim --races` and `run --races` turn it on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/encoding.h"

namespace systole::sim {

struct Race {
  uint32_t earlier = 0, later = 0;  // instruction indices: the first access, and the unordered one after it
  bool accumulator = false;         // else the scratchpad
  int64_t row = 0;                  // the first row both touch
  std::string kind;                 // "read after write", "write after read" or "write after write"

  /// "instruction 12 (...) writes scratchpad row 40, which instruction 9 (...) reads, and no
  /// dependency token orders them (write after read)".
  std::string describe(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) const;
};

/// The first race in an order the tokens allow (every queue in program order, an instruction
/// started once the tokens it pops were pushed), or none. Stops at `finish`; a program whose
/// tokens deadlock is checked up to the deadlock (the simulator reports it).
std::optional<Race> findRace(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program);

}  // namespace systole::sim
