// Algorithm: two hash-consing sweeps. Constants first: constants with the same type, shape and
// bytes (keyed by type, shape and their first and last bytes, then compared) are merged into the first, so repeated
// scalars (0.5, 1.0, the Shape-chain leftovers) and shared biases become one value. Then nodes in topological order: a
// node whose op, inputs and attributes equal an earlier live node's is removed and its readers read
// the earlier node's outputs (inputs are already merged, so one walk finds chains of duplicates).
// Nodes that write a graph output are kept, so output names never change.
#include <algorithm>
#include <functional>
#include <sstream>
#include <unordered_map>

#include "passes/pass_util.h"

namespace systole::compiler {

namespace {

/// A cheap key for a constant: type, shape, size and a few bytes from each end. Constants that
/// share it are compared in full; distinct weights almost never do, so large models are not hashed.
uint64_t constantKey(const Value& v) {
  uint64_t h = 1469598103934665603ull ^ (static_cast<uint64_t>(v.type) << 56);
  auto mix = [&](uint64_t x) { h = (h ^ x) * 1099511628211ull; };
  for (int64_t d : v.shape) mix(static_cast<uint64_t>(d));
  mix(v.data.size());
  const size_t n = std::min<size_t>(v.data.size(), 32);
  for (size_t i = 0; i < n; ++i) mix(v.data[i]);
  for (size_t i = v.data.size() - n; i < v.data.size(); ++i) mix(v.data[i]);
  return h;
}

std::string attrKey(const AttrValue& a) {
  std::ostringstream out;
  out.precision(17);
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          out << "s" << v.size() << ":" << v;
        else if constexpr (std::is_same_v<T, int64_t>)
          out << "i" << v;
        else if constexpr (std::is_same_v<T, double>)
          out << "f" << v;
        else {
          out << "[";
          for (const auto& x : v) out << x << ",";
          out << "]";
        }
      },
      a);
  return out.str();
}

std::string nodeKey(const Node& n) {
  std::ostringstream key;
  key << n.op << "(";
  for (int in : n.inputs) key << in << ",";
  key << ")" << n.outputs.size() << "{";
  for (const auto& [name, a] : n.attrs) key << name << "=" << attrKey(a) << ";";
  key << "}";
  return key.str();
}

void mergeConstants(Graph& g) {
  const passes::Uses uses(g);
  std::unordered_map<uint64_t, std::vector<int>> seen;
  for (size_t i = 0; i < g.values.size(); ++i) {
    const Value& v = g.values[i];
    const int id = static_cast<int>(i);
    if (!v.is_constant || uses.of(id).empty() || uses.isGraphOutput(id)) continue;
    auto& bucket = seen[constantKey(v)];
    int same = -1;
    for (int other : bucket) {
      const Value& o = g.values[static_cast<size_t>(other)];
      if (o.type == v.type && o.shape == v.shape && o.data == v.data) {
        same = other;
        break;
      }
    }
    if (same < 0)
      bucket.push_back(id);
    else
      passes::replaceUses(g, id, same);
  }
}

}  // namespace

void eliminateCommonSubexpressions(Graph& g) {
  mergeConstants(g);
  const passes::Uses uses(g);
  std::unordered_map<std::string, int> seen;
  for (int id : g.topoOrder()) {
    Node& n = g.nodes[static_cast<size_t>(id)];
    bool writesOutput = false;
    for (int o : n.outputs) writesOutput = writesOutput || uses.isGraphOutput(o);
    auto [it, inserted] = seen.emplace(nodeKey(n), id);
    if (inserted || writesOutput) continue;
    const Node& first = g.nodes[static_cast<size_t>(it->second)];
    n.dead = true;
    for (size_t k = 0; k < n.outputs.size(); ++k) passes::replaceUses(g, n.outputs[k], first.outputs[k]);
  }
}

}  // namespace systole::compiler
