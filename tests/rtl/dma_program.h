// Random DMA programs whose result is defined: every DMA instruction of the config moves random
// DRAM bytes into the scratchpad and accumulator and stores rows back to an output region, in
// phases ordered by dependency tokens (the loads, compute instructions, the stores, a nop back),
// so no two queues race on a row. The compute instructions are a nop, array instructions or
// vector instructions. The output region is the program's one output tensor: the
// simulator's outputs are the bytes the RTL NPU's DRAM must hold after the run.
#pragma once

#include <cstdint>

#include "systole/isa/config.h"
#include "systole/isa/program.h"

namespace systole::testing {

/// What each phase computes between its loads and its stores: nothing (a nop), a weight_preload
/// (or weight_preload_t) with up to three matmul_tiles and maybe a requantize, or one to three
/// vector instructions of any class the config has.
enum class ComputePhase { Nop, Array, Vector };

/// Phases of up to four loads and four stores each, after loads that write every row the stores
/// may read; from `seed`. Each phase's compute instructions work on the rows in the windows.
isa::Program randomDmaProgram(const isa::IsaConfig& isa, int phases, uint32_t seed,
                              ComputePhase compute = ComputePhase::Nop);

}  // namespace systole::testing
