// Algorithm: a linear search of a short most-recently-used list; a hit moves to the front, a miss
// decodes and prepares, goes to the front and drops the least recently used entry beyond kEntries.
#include "decode_cache.h"

#include <algorithm>

#include "systole/isa/diagnostic.h"
#include "systole/isa/huge_pages.h"

namespace systole::sim {

PreparedProgram prepareProgram(const isa::IsaConfig& isa, std::vector<isa::Instruction> instructions) {
  PreparedProgram p;
  reserveHuge(p.timing, instructions.size());
  for (const auto& in : instructions) {
    if (p.has_finish && p.after_finish < 0) p.after_finish = static_cast<int64_t>(p.timing.size());
    p.has_finish |= isa.instr(in.desc).semantics == isa::Semantics::Finish;
    InstrTiming t;
    try {
      t = {static_cast<uint64_t>(isa::timingCycles(isa, in)), static_cast<uint64_t>(isa::occupancyCycles(isa, in)),
           true};
    } catch (const Error&) {
      t.known = false;
    }
    p.timing.push_back(t);
  }
  p.instructions = std::move(instructions);
  return p;
}

const PreparedProgram& DecodeCache::decode(const isa::IsaConfig& isa, std::span<const uint8_t> code) {
  auto hit = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) {
    return std::equal(e.code.begin(), e.code.end(), code.begin(), code.end());
  });
  if (hit == entries_.end()) {
    Entry fresh{{}, prepareProgram(isa, isa::decodeAll(isa, code))};
    reserveHuge(fresh.code, code.size());
    fresh.code.assign(code.begin(), code.end());
    entries_.push_front(std::move(fresh));
    if (entries_.size() > kEntries) entries_.pop_back();
  } else if (hit != entries_.begin()) {
    entries_.splice(entries_.begin(), entries_, hit);
  }
  return entries_.front().program;
}

}  // namespace systole::sim
