// Random DMA programs whose result is defined: every DMA instruction of the config moves random
// DRAM bytes into the scratchpad and accumulator and stores rows back to an output region, in
// phases ordered by dependency tokens (the loads, compute instructions, the stores, a nop back),
// so no two queues race on a row. The compute instructions are a nop, or (`array`) a
// weight_preload and matmul_tiles. The output region is the program's one output tensor: the
// simulator's outputs are the bytes the RTL NPU's DRAM must hold after the run.
#pragma once

#include <cstdint>

#include "systole/isa/config.h"
#include "systole/isa/program.h"

namespace systole::testing {

/// Phases of up to four loads and four stores each, after loads that write every row the stores
/// may read; from `seed`. With `array`, each phase's compute is a weight_preload and up to three
/// matmul_tiles of the rows in the windows.
isa::Program randomDmaProgram(const isa::IsaConfig& isa, int phases, uint32_t seed, bool array = false);

}  // namespace systole::testing
