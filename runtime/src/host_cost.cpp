#include "systole/runtime/host_cost.h"

#include <algorithm>

namespace systole::runtime {

namespace {

uint64_t ceilDiv(int64_t a, int64_t b) { return static_cast<uint64_t>((a + b - 1) / b); }

}  // namespace

int64_t nodeMacs(const compiler::Graph& g, const compiler::Node& n) { return compiler::operatorMacs(g, n); }

uint64_t hostOperatorCycles(const isa::Params& p, const compiler::Graph& g, const compiler::Node& n) {
  int64_t elements = 0;
  for (int v : n.outputs) elements += g.values[static_cast<size_t>(v)].elements();
  return static_cast<uint64_t>(p.host_op_cycles) +
         std::max(ceilDiv(elements, p.host_elements_per_cycle), ceilDiv(nodeMacs(g, n), p.host_macs_per_cycle));
}

uint64_t transferCycles(const isa::Params& p, int64_t bytes) {
  return static_cast<uint64_t>(p.dram_latency) + ceilDiv(bytes, p.dram_bytes_per_cycle);
}

}  // namespace systole::runtime
