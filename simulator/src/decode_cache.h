// Programs prepared for the platform and kept between runs: a design-space sweep or a benchmark
// runs one program many times, and decoding it again (and evaluating every instruction's timing
// expressions again) each time cost more than a timing-only run's own bookkeeping. A program is
// recognised by its code bytes (compared whole, so an edited program is never served a stale
// preparation), the most recently used first, at most kEntries of them.
#pragma once

#include <cstdint>
#include <list>
#include <span>
#include <vector>

#include "systole/isa/encoding.h"

namespace systole::sim {

/// An instruction's YAML timing, evaluated once: `cycles` from start to completion and the cycles
/// it occupies its unit (isa::occupancyCycles). `known` is false when an expression failed (a
/// division by zero, say): the unit then evaluates it when the instruction runs, so the fault
/// names that instruction as before.
struct InstrTiming {
  uint64_t cycles = 0, occupancy = 0;
  bool known = false;
};

struct PreparedProgram {
  std::vector<isa::Instruction> instructions;
  std::vector<InstrTiming> timing;  // one per instruction
  bool has_finish = false;
  int64_t after_finish = -1;  // the first instruction after the first finish (it would never run), or -1
};

PreparedProgram prepareProgram(const isa::IsaConfig& isa, std::vector<isa::Instruction> instructions);

class DecodeCache {
 public:
  static constexpr size_t kEntries = 16;

  /// The prepared program of `code` for `isa` (the one config of the owning Simulator). Throws
  /// Error as isa::decodeAll does; a program that fails to decode is not kept.
  const PreparedProgram& decode(const isa::IsaConfig& isa, std::span<const uint8_t> code);

 private:
  struct Entry {
    std::vector<uint8_t> code;
    PreparedProgram program;
  };
  std::list<Entry> entries_;
};

}  // namespace systole::sim
