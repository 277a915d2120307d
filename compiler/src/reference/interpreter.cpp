// Algorithm: walk the nodes in topological order; keep each value's tensor until its last reader
// has run, showing each to the observer (if any) as it is produced; run the quantized kernel when
// the node is a quantized operator, else the float kernel. Constants are materialized once per
// Interpreter and read in place by every run.
#include "systole/compiler/interpreter.h"

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

Interpreter::Interpreter(const Graph& g) : Interpreter(g, nullptr) {}

Interpreter::Interpreter(Graph& g, TakeConstants) : Interpreter(g, &g) {}

Interpreter::Interpreter(const Graph& g, Graph* lender)
    : g_(g),
      lender_(lender),
      constants_(g.values.size()),
      order_(g.topoOrder()),
      readers_(g.values.size()),
      isOutput_(g.values.size(), false) {
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].is_constant) {
      HostTensor t;
      t.type = g.values[v].type;
      t.shape = g.values[v].shape;
      t.bytes = lender ? std::move(lender->values[v].data) : g.values[v].data;
      constants_[v] = std::move(t);
    }
  const auto users = g.users();
  for (size_t v = 0; v < g.values.size(); ++v) readers_[v] = users[v].size();
  for (int v : g.outputs) isOutput_[static_cast<size_t>(v)] = true;
}

Interpreter::~Interpreter() {
  if (!lender_) return;
  for (size_t v = 0; v < constants_.size(); ++v)
    if (constants_[v]) lender_->values[v].data = std::move(constants_[v]->bytes);
}

std::map<std::string, HostTensor> Interpreter::run(const std::map<std::string, HostTensor>& inputs,
                                                   const ValueObserver& observe) const {
  const Graph& g = g_;
  std::vector<std::optional<HostTensor>> env(g.values.size());
  auto valueOf = [&](size_t v) -> const HostTensor* {
    if (constants_[v]) return &*constants_[v];
    return env[v] ? &*env[v] : nullptr;
  };
  for (int v : g.inputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    auto it = inputs.find(val.name);
    if (it == inputs.end()) throw Error("missing graph input '" + val.name + "'");
    if (it->second.type != val.type || it->second.shape != val.shape)
      throw Error("graph input '" + val.name + "' has the wrong type or shape");
    env[static_cast<size_t>(v)] = it->second;
    if (observe) observe(v, it->second);
  }
  std::vector<size_t> remaining = readers_;

  for (int id : order_) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    std::vector<const HostTensor*> in;
    for (int v : n.inputs) {
      if (v < 0) {
        in.push_back(nullptr);
        continue;
      }
      const HostTensor* t = valueOf(static_cast<size_t>(v));
      if (!t)
        throw Error("node '" + n.name + "' (" + n.op + "): input '" + g.values[static_cast<size_t>(v)].name +
                    "' has no value");
      in.push_back(t);
    }
    std::vector<HostTensor> results;
    for (int v : n.outputs)
      results.emplace_back(g.values[static_cast<size_t>(v)].type, g.values[static_cast<size_t>(v)].shape);
    std::vector<HostTensor*> out;
    for (auto& r : results) out.push_back(&r);
    runKernel(g, n, in, out);
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      env[static_cast<size_t>(n.outputs[i])] = std::move(results[i]);
      if (observe) observe(n.outputs[i], *env[static_cast<size_t>(n.outputs[i])]);
    }
    for (int v : n.inputs)
      if (v >= 0 && --remaining[static_cast<size_t>(v)] == 0 && !isOutput_[static_cast<size_t>(v)])
        env[static_cast<size_t>(v)].reset();
  }
  std::map<std::string, HostTensor> result;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (isOutput_[v]) {
      if (const HostTensor* t = valueOf(v)) result[g.values[v].name] = *t;
    }
  return result;
}

void runKernel(const Graph& g, const Node& n, const std::vector<const HostTensor*>& in, std::vector<HostTensor*>& out) {
  try {
    if (!runQuantizedKernel(g, n, in, out)) runFloatKernel(g, n, in, out);
  } catch (const Error& e) {
    throw Error("node '" + n.name + "' (" + n.op + "): " + e.message());
  }
}

std::map<std::string, HostTensor> interpret(const Graph& g, const std::map<std::string, HostTensor>& inputs,
                                            bool keepAll) {
  const Interpreter interpreter(g);
  if (!keepAll) return interpreter.run(inputs);
  std::map<std::string, HostTensor> all;
  interpreter.run(inputs, [&](int v, const HostTensor& t) { all[g.values[static_cast<size_t>(v)].name] = t; });
  return all;
}

}  // namespace systole::compiler
