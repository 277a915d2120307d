// The serialized chain load -> preload -> gemm -> requantize -> store -> finish on any config,
// each step waiting for the one before (a token or its queue order). Scratchpad: [R weight
// rows][m activation rows][m output rows] (R = array.rows); one load brings the weights and the
// activations (R + m rows of E = scratchpad row elements bytes from DRAM 0), the store writes m
// rows to DRAM 0x10000. The requantize reads its scale rows at accumulator rows m, m + 1, which
// are never written: their values do not affect timing or traffic (only poison mode objects).
#pragma once

#include <cstdint>

#include "systole/isa/builder.h"

namespace systole::testing {

void emitSerialChain(isa::ProgramBuilder& b, int64_t m);

}  // namespace systole::testing
