// Helpers for the quantization tests: building small graphs value by value, random tensors and
// the cosine similarity of two float tensors.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/compiler/host_tensor.h"
#include "systole/compiler/interpreter.h"
#include "systole/compiler/quantize.h"

namespace systole::compiler::test {

/// Builds a Graph through its public API with less typing.
struct GraphBuilder {
  Graph g;

  GraphBuilder() { g.opset = 13; }

  int value(const std::string& name, std::vector<int64_t> shape, ElemType type = ElemType::Float32,
            std::optional<Quant> quant = std::nullopt) {
    Value v;
    v.name = name;
    v.type = type;
    v.shape = std::move(shape);
    v.quant = std::move(quant);
    return g.addValue(std::move(v));
  }
  int input(const std::string& name, std::vector<int64_t> shape, ElemType type = ElemType::Float32,
            std::optional<Quant> quant = std::nullopt) {
    const int id = value(name, std::move(shape), type, std::move(quant));
    g.inputs.push_back(id);
    return id;
  }
  template <typename T>
  int constant(const std::string& name, std::vector<int64_t> shape, const std::vector<T>& data, ElemType type,
               std::optional<Quant> quant = std::nullopt) {
    const int id = value(name, std::move(shape), type, std::move(quant));
    Value& v = g.values[static_cast<size_t>(id)];
    v.is_constant = true;
    v.data.resize(data.size() * sizeof(T));
    std::memcpy(v.data.data(), data.data(), v.data.size());
    return id;
  }
  int constF(const std::string& name, std::vector<int64_t> shape, const std::vector<float>& data) {
    return constant(name, std::move(shape), data, ElemType::Float32);
  }
  /// A node with one new output value `out` of the given shape (type float unless given).
  int node(const std::string& op, std::vector<int> inputs, const std::string& out, std::vector<int64_t> shape,
           std::map<std::string, AttrValue> attrs = {}, ElemType type = ElemType::Float32,
           std::optional<Quant> quant = std::nullopt) {
    const int y = value(out, std::move(shape), type, std::move(quant));
    Node n;
    n.name = out + "_node";
    n.op = op;
    n.inputs = std::move(inputs);
    n.outputs = {y};
    n.attrs = std::move(attrs);
    g.addNode(std::move(n));
    return y;
  }
  void output(int v) { g.outputs.push_back(v); }
};

inline Quant perTensorQ(float scale, int32_t zero) { return Quant{{scale}, {zero}, -1}; }

inline std::vector<float> randomFloats(size_t n, std::mt19937& rng, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

inline std::vector<int8_t> randomInt8(size_t n, std::mt19937& rng, int lo = -128, int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(rng));
  return v;
}

template <typename T>
HostTensor tensorOf(ElemType type, std::vector<int64_t> shape, const std::vector<T>& data) {
  HostTensor t(type, std::move(shape));
  EXPECT_EQ(t.bytes.size(), data.size() * sizeof(T));
  std::memcpy(t.bytes.data(), data.data(), t.bytes.size());
  return t;
}

template <typename T>
std::vector<T> valuesOf(const HostTensor& t) {
  std::vector<T> v(static_cast<size_t>(t.elements()));
  std::memcpy(v.data(), t.bytes.data(), v.size() * sizeof(T));
  return v;
}

inline double cosineSimilarity(const HostTensor& a, const HostTensor& b) {
  EXPECT_EQ(a.type, ElemType::Float32);
  EXPECT_EQ(b.type, ElemType::Float32);
  EXPECT_EQ(a.shape, b.shape);
  double dot = 0, na = 0, nb = 0;
  for (int64_t i = 0; i < std::min(a.elements(), b.elements()); ++i) {
    const double x = a.data<float>()[i], y = b.data<float>()[i];
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na == 0 && nb == 0) return 1.0;
  return dot / std::sqrt(na * nb);
}

/// The worst cosine of output `name` of `fg` quantized with `opts` (calibrated on 16 seeded random
/// inputs, one job) against `fg` itself, over 4 other seeded random inputs.
inline double quantizedCosine(const Graph& fg, QuantOptions opts, const std::string& name) {
  Graph q = fg;
  opts.jobs = 1;
  quantize(q, makeRandomInputs(fg, 16, 1), opts);
  double worst = 1;
  for (const auto& in : makeRandomInputs(fg, 4, 99))
    worst = std::min(worst, cosineSimilarity(interpret(fg, in).at(name), interpret(q, in).at(name)));
  return worst;
}

}  // namespace systole::compiler::test
