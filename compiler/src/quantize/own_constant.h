// Rewriting a float constant in place for one node without changing what other nodes read:
// activation smoothing and cross-layer equalization both rescale weights that CSE may have merged.
#pragma once

#include <string>

#include "systole/compiler/graph.h"

namespace systole::compiler {

/// Input `k` of node `id`, a float constant, as this node's own copy: if another input slot
/// reads the value too, the node gets a new value named NAME + `suffix` first.
float* ownFloatInput(Graph& g, int id, size_t k, const std::string& suffix);

}  // namespace systole::compiler
