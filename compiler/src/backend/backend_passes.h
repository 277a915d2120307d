// The back end's passes over the tile-plan IR, in order. Each is one file that opens with its
// algorithm; the plan can be printed after any of them (printPlan, --emit=<pass>).
#pragma once

#include <vector>

#include "systole/compiler/backend.h"
#include "systole/compiler/graph.h"
#include "tile_plan.h"

namespace systole::compiler {

/// tiling.cpp: a run of NPU nodes -> buffers, on-chip layout, layers of steps (symbolic places).
TilePlan tileSegment(const Graph& g, const isa::IsaConfig& isa, const std::vector<int>& order,
                     const LowerOptions& options);
/// plan_memory.cpp: DRAM placement of constants and buffers; slots, halves and addresses resolved.
void planMemory(const isa::IsaConfig& isa, TilePlan& plan);
/// schedule.cpp: dependency tokens for double buffering, barriers between layers, the epilogue.
void schedulePlan(TilePlan& plan);
/// emit_program.cpp: the encoded program, its tensor table and data, and the layer reports.
CompiledProgram emitProgram(const Graph& g, const isa::IsaConfig& isa, TilePlan& plan);

}  // namespace systole::compiler
