// Algorithm: walk the nodes in topological order; keep each value's tensor until its last reader
// has run (unless every value is wanted); run the quantized kernel when the node is a quantized
// operator, else the float kernel.
#include "systole/compiler/interpreter.h"

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

std::map<std::string, HostTensor> interpret(const Graph& g, const std::map<std::string, HostTensor>& inputs,
                                            bool keepAll) {
  std::vector<std::optional<HostTensor>> env(g.values.size());
  for (int v : g.inputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    auto it = inputs.find(val.name);
    if (it == inputs.end()) throw Error("missing graph input '" + val.name + "'");
    if (it->second.type != val.type || it->second.shape != val.shape)
      throw Error("graph input '" + val.name + "' has the wrong type or shape");
    env[static_cast<size_t>(v)] = it->second;
  }
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].is_constant) {
      HostTensor t(g.values[v].type, g.values[v].shape);
      t.bytes = g.values[v].data;
      env[v] = std::move(t);
    }
  const auto users = g.users();
  std::vector<size_t> remaining(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) remaining[v] = users[v].size();
  std::vector<bool> isOutput(g.values.size(), false);
  for (int v : g.outputs) isOutput[static_cast<size_t>(v)] = true;

  for (int id : g.topoOrder()) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    std::vector<const HostTensor*> in;
    for (int v : n.inputs) {
      if (v < 0) {
        in.push_back(nullptr);
        continue;
      }
      if (!env[static_cast<size_t>(v)])
        throw Error("node '" + n.name + "' (" + n.op + "): input '" + g.values[static_cast<size_t>(v)].name + "' has no value");
      in.push_back(&*env[static_cast<size_t>(v)]);
    }
    std::vector<HostTensor> results;
    for (int v : n.outputs) results.emplace_back(g.values[static_cast<size_t>(v)].type, g.values[static_cast<size_t>(v)].shape);
    std::vector<HostTensor*> out;
    for (auto& r : results) out.push_back(&r);
    try {
      if (!runQuantizedKernel(g, n, in, out)) runFloatKernel(g, n, in, out);
    } catch (const Error& e) {
      throw Error("node '" + n.name + "' (" + n.op + "): " + e.message());
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) env[static_cast<size_t>(n.outputs[i])] = std::move(results[i]);
    if (!keepAll)
      for (int v : n.inputs)
        if (v >= 0 && --remaining[static_cast<size_t>(v)] == 0 && !isOutput[static_cast<size_t>(v)] &&
            !g.values[static_cast<size_t>(v)].is_constant)
          env[static_cast<size_t>(v)].reset();
  }
  std::map<std::string, HostTensor> result;
  for (size_t v = 0; v < g.values.size(); ++v) {
    const bool wanted = keepAll ? !g.values[v].is_constant : isOutput[v];
    if (wanted && env[v]) result[g.values[v].name] = *env[v];
  }
  return result;
}

}  // namespace systole::compiler
