// Algorithm: mark-and-sweep from the graph outputs. Walking the nodes in reverse topological
// order, a node is live when one of its outputs is a graph output or is read by a live node; every
// other node is removed (no operator here has side effects). Unread constants and values vanish at
// the pipeline's final compaction.
#include "passes/pass_util.h"

namespace systole::compiler {

void eliminateDeadCode(Graph& g) {
  std::vector<bool> needed(g.values.size(), false);
  for (int v : g.outputs) needed[static_cast<size_t>(v)] = true;
  const std::vector<int> order = g.topoOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node& n = g.nodes[static_cast<size_t>(*it)];
    bool live = false;
    for (int o : n.outputs) live = live || needed[static_cast<size_t>(o)];
    if (!live) {
      n.dead = true;
      continue;
    }
    for (int in : n.inputs)
      if (in >= 0) needed[static_cast<size_t>(in)] = true;
  }
}

}  // namespace systole::compiler
