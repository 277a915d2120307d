// Helpers for the front end's tests: seeded random tensors, one-node graphs run through the shape
// functions and the float kernels, whole graphs run through the interpreter, and comparisons.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/host_tensor.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/passes.h"
#include "systole/isa/diagnostic.h"

namespace systole::testing {

using compiler::AttrValue;
using compiler::ElemType;
using compiler::Graph;
using compiler::HostTensor;
using compiler::Node;
using compiler::Value;
using Shape = std::vector<int64_t>;

inline HostTensor floatTensor(Shape shape, const std::vector<float>& data) {
  HostTensor t(ElemType::Float32, std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.elements()), data.size());
  if (!data.empty()) std::memcpy(t.bytes.data(), data.data(), t.bytes.size());
  return t;
}

inline HostTensor intTensor(Shape shape, const std::vector<int64_t>& data) {
  HostTensor t(ElemType::Int64, std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.elements()), data.size());
  if (!data.empty()) std::memcpy(t.bytes.data(), data.data(), t.bytes.size());
  return t;
}

inline HostTensor randomTensor(Shape shape, uint64_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  HostTensor t(ElemType::Float32, std::move(shape));
  for (int64_t i = 0; i < t.elements(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

inline std::vector<float> values(const HostTensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.elements());
}

/// max |a - b| over all elements (shapes must match).
inline double maxAbsDiff(const HostTensor& a, const HostTensor& b) {
  EXPECT_EQ(a.shape, b.shape);
  if (a.shape != b.shape) return INFINITY;
  double d = 0;
  for (int64_t i = 0; i < a.elements(); ++i)
    d = std::max(d, std::abs(static_cast<double>(a.data<float>()[i]) - b.data<float>()[i]));
  return d;
}

inline double maxAbs(const HostTensor& a) {
  double m = 0;
  for (int64_t i = 0; i < a.elements(); ++i) m = std::max(m, std::abs(static_cast<double>(a.data<float>()[i])));
  return m;
}

/// Row-major flat index of a multi-index.
inline int64_t flat(const Shape& shape, const std::vector<int64_t>& idx) {
  int64_t f = 0;
  for (size_t i = 0; i < shape.size(); ++i) f = f * shape[i] + idx[i];
  return f;
}

/// The multi-index of a flat index.
inline std::vector<int64_t> unflat(const Shape& shape, int64_t f) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = f % shape[i];
    f /= shape[i];
  }
  return idx;
}

/// Builds a graph with one node: inputs marked constant in `constant` become constant values
/// (so shapes that depend on them resolve), the rest graph inputs. nullptr entries are omitted
/// optional inputs.
struct OneNode {
  Graph g;
  int node = -1;
};

inline OneNode oneNodeGraph(const std::string& op, const std::vector<const HostTensor*>& inputs,
                            std::map<std::string, AttrValue> attrs = {}, int outputs = 1,
                            std::vector<bool> constant = {}, int64_t opset = 14) {
  OneNode r;
  r.g.opset = opset;
  Node n;
  n.name = "n0";
  n.op = op;
  n.attrs = std::move(attrs);
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k]) {
      n.inputs.push_back(-1);
      continue;
    }
    Value v;
    v.name = "in" + std::to_string(k);
    v.type = inputs[k]->type;
    v.shape = inputs[k]->shape;
    const bool isConst = k < constant.size() ? constant[k] : k > 0;
    if (isConst) {
      v.is_constant = true;
      v.data = inputs[k]->bytes;
    }
    const int id = r.g.addValue(std::move(v));
    if (!isConst) r.g.inputs.push_back(id);
    n.inputs.push_back(id);
  }
  for (int k = 0; k < outputs; ++k) {
    Value v;
    v.name = "out" + std::to_string(k);
    v.shape = {-1};
    n.outputs.push_back(r.g.addValue(std::move(v)));
  }
  r.node = r.g.addNode(std::move(n));
  r.g.outputs.push_back(r.g.nodes[0].outputs[0]);
  return r;
}

/// Runs one operator: shape inference (which must succeed), then the float kernel. Inputs after
/// the first are constants unless `constant` says otherwise.
inline std::vector<HostTensor> runOp(const std::string& op, const std::vector<const HostTensor*>& inputs,
                                     std::map<std::string, AttrValue> attrs = {}, int outputs = 1, int64_t opset = 14) {
  OneNode one = oneNodeGraph(op, inputs, std::move(attrs), outputs, {}, opset);
  compiler::inferShapes(one.g);
  compiler::verifyShapes(one.g);
  const Node& n = one.g.nodes[0];
  std::vector<HostTensor> out;
  for (int v : n.outputs)
    out.emplace_back(one.g.values[static_cast<size_t>(v)].type, one.g.values[static_cast<size_t>(v)].shape);
  std::vector<HostTensor*> ptrs;
  for (auto& t : out) ptrs.push_back(&t);
  compiler::runFloatKernel(one.g, n, inputs, ptrs);
  return out;
}

inline HostTensor run1(const std::string& op, const std::vector<const HostTensor*>& inputs,
                       std::map<std::string, AttrValue> attrs = {}, int64_t opset = 14) {
  return runOp(op, inputs, std::move(attrs), 1, opset)[0];
}

/// Seeded inputs for every graph input.
inline std::map<std::string, HostTensor> randomInputs(const Graph& g, uint64_t seed) {
  std::map<std::string, HostTensor> in;
  for (int v : g.inputs) {
    const Value& val = g.values[static_cast<size_t>(v)];
    in[val.name] = randomTensor(val.shape, seed++);
  }
  return in;
}

}  // namespace systole::testing
