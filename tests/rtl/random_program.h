// Random legal programs for differential runs of the whole-NPU RTL against the simulator: every
// instruction of the config may appear, with operands inside their fields' limits and row ranges
// inside the memories, and dependency tokens that never wait for a later instruction (each pop
// takes a token an earlier instruction pushed; whatever is left is popped before `finish`).
#pragma once

#include <cstdint>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/encoding.h"

namespace systole::testing {

/// `count` random instructions (and the ones that drain the tokens, and finish), from `seed`.
std::vector<isa::Instruction> randomProgram(const isa::IsaConfig& isa, int count, uint32_t seed);

}  // namespace systole::testing
