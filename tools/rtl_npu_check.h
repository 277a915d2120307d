// `--rtl=npu` for `systole sim` and `systole run`: a program on the Verilated NPU (rtl/npu),
// compared with the simulator's run of it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/program.h"
#include "systole/sim/simulator.h"

namespace systole::tools {

/// Runs the program on the Verilated NPU, its DRAM holding the program's data and `inputs`, and
/// prints (each line after `prefix`) the comparison with the simulator's run, which must have
/// recorded its timeline; whether every instruction's start and completion, the total, the busy
/// and stall cycles and (where the RTL computes them) the outputs agree.
bool compareOnRtlNpu(const isa::IsaConfig& config, const isa::Program& program,
                     const std::map<std::string, std::vector<uint8_t>>& inputs, const sim::SimResult& simulated,
                     const std::string& prefix = "");

}  // namespace systole::tools
