#include "quantize/own_constant.h"

#include <algorithm>

namespace systole::compiler {

float* ownFloatInput(Graph& g, int id, size_t k, const std::string& suffix) {
  const int v = g.nodes[static_cast<size_t>(id)].inputs[k];
  int readers = 0;
  for (const Node& n : g.nodes)
    if (!n.dead) readers += static_cast<int>(std::count(n.inputs.begin(), n.inputs.end(), v));
  if (readers > 1) {
    Value copy = g.values[static_cast<size_t>(v)];
    copy.name += suffix;
    g.nodes[static_cast<size_t>(id)].inputs[k] = g.addValue(std::move(copy));
  }
  return reinterpret_cast<float*>(
      g.values[static_cast<size_t>(g.nodes[static_cast<size_t>(id)].inputs[k])].data.data());
}

}  // namespace systole::compiler
