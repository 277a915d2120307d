// A simulation fault: the program did something the hardware cannot (an address out of range, a
// token that never arrives). It names the instruction, its disassembly and the cause.
#pragma once

#include <cstdint>
#include <string>

#include "systole/isa/diagnostic.h"

namespace systole::sim {

class Fault : public Error {
 public:
  Fault(int64_t instruction, const std::string& disassembly, const std::string& cause)
      : Error("instruction " + std::to_string(instruction) + " (" + disassembly + "): " + cause),
        instruction_(instruction) {}
  explicit Fault(const std::string& cause) : Error(cause), instruction_(-1) {}

  int64_t instruction() const { return instruction_; }

 private:
  int64_t instruction_;
};

/// Thrown by the functional models with only the cause; the unit that ran the instruction adds
/// its index and disassembly.
struct FaultCause {
  std::string message;
};

}  // namespace systole::sim
