// What the graph-pass tests share: a builder of small graphs, and the checks that a pass
// rewrote what it should (opCounts, onlyNode) and that the optimized graph computes what the
// original did (expectSameResults, through the interpreter).
#pragma once

#include <gtest/gtest.h>

#include "compiler_test_util.h"

namespace systole::testing {

/// Builds a graph node by node; its values get unique names.
class Builder {
 public:
  Builder() { g.opset = 14; }
  Graph g;

  int input(const std::string& name, Shape shape) {
    const int v = value(name, std::move(shape));
    g.inputs.push_back(v);
    return v;
  }
  int constant(Shape shape, uint64_t seed, float lo = -1.f, float hi = 1.f) {
    const HostTensor t = randomTensor(shape, seed, lo, hi);
    return constantFrom(t);
  }
  int scalar(float x) { return constantFrom(floatTensor({}, {x})); }
  int ints(std::vector<int64_t> v) { return constantFrom(intTensor({static_cast<int64_t>(v.size())}, v)); }
  int constantFrom(const HostTensor& t) {
    Value v;
    v.name = "c" + std::to_string(counter_++);
    v.type = t.type;
    v.shape = t.shape;
    v.is_constant = true;
    v.data = t.bytes;
    return g.addValue(std::move(v));
  }
  int op(const std::string& type, std::vector<int> inputs, std::map<std::string, AttrValue> attrs = {},
         const std::string& out = "") {
    Node n;
    n.name = type + "_" + std::to_string(counter_);
    n.op = type;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    const int v = value(out.empty() ? "v" + std::to_string(counter_++) : out, {-1});
    n.outputs = {v};
    g.addNode(std::move(n));
    return v;
  }
  void output(int v) { g.outputs.push_back(v); }

  /// Shapes filled in, ready to interpret.
  Graph done() {
    Graph copy = g;
    compiler::inferShapes(copy);
    return copy;
  }

 private:
  int value(const std::string& name, Shape shape) {
    Value v;
    v.name = name;
    v.shape = std::move(shape);
    return g.addValue(std::move(v));
  }
  int counter_ = 0;
};

inline std::map<std::string, int> opCounts(const Graph& g) {
  std::map<std::string, int> c;
  for (const auto& n : g.nodes)
    if (!n.dead) ++c[n.op];
  return c;
}

inline const Node& onlyNode(const Graph& g, const std::string& op) {
  for (const auto& n : g.nodes)
    if (!n.dead && n.op == op) return n;
  throw std::runtime_error("no " + op + " node");
}

inline compiler::PassOptions verifying() {
  compiler::PassOptions o;
  o.verify = true;
  return o;
}

inline Graph optimized(Graph g, const std::vector<std::string>& pipeline = compiler::defaultPipeline()) {
  compiler::runPasses(g, pipeline, verifying());
  return g;
}

/// The original and the optimized graph give the same outputs (same names) on seeded inputs.
inline void expectSameResults(const Graph& before, const Graph& after, double tol = 1e-5) {
  const auto inputs = randomInputs(before, 7);
  const auto want = compiler::interpret(before, inputs);
  const auto got = compiler::interpret(after, inputs);
  ASSERT_EQ(want.size(), got.size());
  for (const auto& [name, t] : want) {
    ASSERT_TRUE(got.count(name)) << "output " << name << " lost its name";
    EXPECT_LE(maxAbsDiff(got.at(name), t), tol * std::max(1.0, maxAbs(t))) << name;
  }
}

}  // namespace systole::testing
