// Algorithm: every Identity, and every Dropout (inference: its output equals its input; its mask
// output must go unused), is bypassed: its readers read its input instead. A graph output keeps its
// name (the producer of the input writes it directly); an Identity between a graph input and a
// graph output stays, since neither name may change.
#include "passes/pass_util.h"

namespace systole::compiler {

void removeIdentities(Graph& g) {
  passes::Uses uses(g);
  for (int id : g.topoOrder()) {
    Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.op != Op::Identity && n.op != Op::Dropout) continue;
    if (n.inputs.empty() || n.inputs[0] < 0 || n.outputs.empty()) continue;
    bool maskUsed = false;
    for (size_t k = 1; k < n.outputs.size(); ++k)
      maskUsed = maskUsed || !uses.of(n.outputs[k]).empty() || uses.isGraphOutput(n.outputs[k]);
    if (maskUsed) continue;
    if (passes::bypass(g, id, n.outputs[0], n.inputs[0])) uses.refresh();
  }
}

}  // namespace systole::compiler
