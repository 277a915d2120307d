// What the work the NPU does not do costs, in NPU cycles, from the config's `host` section and
// its DRAM channel: each host operator pays `host.op_cycles` plus its output elements at
// `host.elements_per_cycle` or its multiply-accumulates at `host.macs_per_cycle`, whichever is
// more; each tensor crossing between host and NPU moves through DRAM at `dram.bytes_per_cycle`
// after `dram.latency`. A model's total is then NPU + host + transfer cycles (run serially).
#pragma once

#include <cstdint>

#include "systole/compiler/graph.h"
#include "systole/isa/config.h"

namespace systole::runtime {

/// Multiply-accumulates of a Conv, Gemm or MatMul node (0 for any other operator).
int64_t nodeMacs(const compiler::Graph& g, const compiler::Node& n);

/// Cycles the host takes for one operator.
uint64_t hostOperatorCycles(const isa::Params& p, const compiler::Graph& g, const compiler::Node& n);

/// Cycles to move `bytes` between host and NPU memory over the DRAM channel.
uint64_t transferCycles(const isa::Params& p, int64_t bytes);

}  // namespace systole::runtime
