// Algorithm (partitioning): walk the quantized graph in topological order; maximal runs of nodes
// that the registry says the config's NPU can run become segments (one program each), and a
// segment with fewer multiply-accumulates than --min-npu-macs stays on the host, where moving its
// tensors would cost more than it saves.
#include <numeric>

#include "operator_registry.h"
#include "systole/compiler/backend.h"

namespace systole::compiler {

std::vector<std::vector<int>> partition(const Graph& g, const isa::IsaConfig& isa, const LowerOptions& options) {
  std::vector<std::vector<int>> segments;
  bool open = false;
  for (int id : g.topoOrder()) {
    const bool npu = npuIneligibility(g, g.nodes[static_cast<size_t>(id)], isa).empty();
    if (npu && !open) segments.emplace_back();
    if (npu) segments.back().push_back(id);
    open = npu;
  }
  std::vector<std::vector<int>> kept;
  for (auto& seg : segments) {
    const int64_t macs = std::accumulate(seg.begin(), seg.end(), int64_t{0}, [&](int64_t sum, int id) {
      return sum + npuMacs(g, g.nodes[static_cast<size_t>(id)]);
    });
    if (macs >= options.min_npu_macs) kept.push_back(std::move(seg));
  }
  return kept;
}

}  // namespace systole::compiler
