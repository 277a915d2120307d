// Builds small float graphs for the end-to-end tests with the compiler's Graph API, the way the
// ONNX importer and the optimizer leave them (Conv/Gemm with a fused "activation" attribute; an
// `auto_pad` written by the *Same builders is resolved into pads by finish(), as import does).
// Every operator keeps its input's batch N.
#pragma once

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "systole/compiler/auto_pad.h"
#include "systole/compiler/graph.h"

namespace systole::testing {

class FloatGraphBuilder {
 public:
  explicit FloatGraphBuilder(uint64_t seed) : rng_(seed) { g_.opset = 14; }

  int input(const std::string& name, std::vector<int64_t> shape) {
    const int v = value(name, std::move(shape));
    g_.inputs.push_back(v);
    return v;
  }

  int constant(std::vector<int64_t> shape, float scale) {
    compiler::Value v;
    v.name = "c" + std::to_string(counter_++);
    v.shape = std::move(shape);
    v.is_constant = true;
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<float> data(static_cast<size_t>(v.elements()));
    for (auto& x : data) x = u(rng_);
    v.data.resize(data.size() * 4);
    std::memcpy(v.data.data(), data.data(), v.data.size());
    return g_.addValue(std::move(v));
  }

  int conv(int x, int64_t oc, int64_t k, int64_t stride, int64_t pad, int64_t group, bool relu) {
    return convWindow(x, oc, {k, k, stride, stride, 1, 1, pad, pad, pad, pad}, group, relu);
  }

  /// Every window parameter of a Conv on its own: kernel, strides, dilations, and the pads in ONNX
  /// order (top, left, bottom, right).
  struct Window {
    int64_t kh = 3, kw = 3, sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0, pb = 0, pr = 0;
  };
  int convWindow(int x, int64_t oc, const Window& w, int64_t group, bool relu) {
    const auto s = shape(x);
    const int64_t oh = (s[2] + w.pt + w.pb - w.dh * (w.kh - 1) - 1) / w.sh + 1,
                  ow = (s[3] + w.pl + w.pr - w.dw * (w.kw - 1) - 1) / w.sw + 1;
    compiler::Node n = convNode(x, oc, w.kh, w.kw, group, relu, {oh, ow});
    n.attrs["strides"] = std::vector<int64_t>{w.sh, w.sw};
    n.attrs["dilations"] = std::vector<int64_t>{w.dh, w.dw};
    n.attrs["pads"] = std::vector<int64_t>{w.pt, w.pl, w.pb, w.pr};
    return add(std::move(n));
  }

  /// A Conv padded by `autoPad` (SAME_UPPER or SAME_LOWER), as TensorFlow exports write it.
  int convSame(int x, int64_t oc, int64_t k, int64_t stride, const std::string& autoPad, bool relu) {
    compiler::Node n = convNode(x, oc, k, k, 1, relu, sameSize(x, stride));
    n.attrs["strides"] = std::vector<int64_t>{stride, stride};
    n.attrs["auto_pad"] = autoPad;
    return add(std::move(n));
  }

  /// MaxPool, or AveragePool counting the padding (the NPU's divisor), padded by `autoPad`.
  int poolSame(const std::string& op, int x, int64_t k, int64_t stride, const std::string& autoPad) {
    const auto hw = sameSize(x, stride);
    compiler::Node n = node(op, {x}, {shape(x)[0], shape(x)[1], hw[0], hw[1]});
    n.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
    n.attrs["strides"] = std::vector<int64_t>{stride, stride};
    n.attrs["auto_pad"] = autoPad;
    if (op == "AveragePool") n.attrs["count_include_pad"] = int64_t{1};
    return add(std::move(n));
  }

  int gemm(int x, int64_t n_out, bool relu) {
    const auto s = shape(x);
    const int w = constant({n_out, s[1]}, 1.0f / static_cast<float>(std::sqrt(static_cast<double>(s[1]))));
    const int b = constant({n_out}, 0.1f);
    compiler::Node n = node("Gemm", {x, w, b}, {s[0], n_out});
    n.attrs["transB"] = int64_t{1};
    if (relu) n.attrs["activation"] = std::string("relu");
    return add(std::move(n));
  }

  int addOp(int a, int b, bool relu) {
    compiler::Node n = node("Add", {a, b}, shape(a));
    if (relu) n.attrs["activation"] = std::string("relu");
    return add(std::move(n));
  }

  int maxPool(int x, int64_t k, int64_t stride, int64_t pad) {
    const auto s = shape(x);
    compiler::Node n =
        node("MaxPool", {x}, {s[0], s[1], (s[2] + 2 * pad - k) / stride + 1, (s[3] + 2 * pad - k) / stride + 1});
    n.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
    n.attrs["strides"] = std::vector<int64_t>{stride, stride};
    n.attrs["pads"] = std::vector<int64_t>{pad, pad, pad, pad};
    return add(std::move(n));
  }

  /// MaxPool (ceil_mode 0 or 1) or AveragePool counting the padding, with its own window per axis
  /// and pads in ONNX order (top, left, bottom, right). With ceil_mode the last window may hang
  /// over the input's end (ONNX: it must still start inside the input or its leading padding).
  int poolWindow(const std::string& op, int x, const Window& w, bool ceilMode) {
    const auto s = shape(x);
    const auto out = [&](int64_t in, int64_t k, int64_t st, int64_t pBegin, int64_t pEnd) {
      const int64_t span = in + pBegin + pEnd - k;
      int64_t o = (ceilMode ? (span + st - 1) / st : span / st) + 1;
      if (ceilMode && (o - 1) * st >= in + pBegin) --o;
      return o;
    };
    compiler::Node n =
        node(op, {x}, {s[0], s[1], out(s[2], w.kh, w.sh, w.pt, w.pb), out(s[3], w.kw, w.sw, w.pl, w.pr)});
    n.attrs["kernel_shape"] = std::vector<int64_t>{w.kh, w.kw};
    n.attrs["strides"] = std::vector<int64_t>{w.sh, w.sw};
    n.attrs["pads"] = std::vector<int64_t>{w.pt, w.pl, w.pb, w.pr};
    if (ceilMode) n.attrs["ceil_mode"] = int64_t{1};
    if (op == "AveragePool") n.attrs["count_include_pad"] = int64_t{1};
    return add(std::move(n));
  }

  int averagePool(int x, int64_t k, int64_t stride) {
    const auto s = shape(x);
    compiler::Node n = node("AveragePool", {x}, {s[0], s[1], (s[2] - k) / stride + 1, (s[3] - k) / stride + 1});
    n.attrs["kernel_shape"] = std::vector<int64_t>{k, k};
    n.attrs["strides"] = std::vector<int64_t>{stride, stride};
    return add(std::move(n));
  }

  int globalAveragePool(int x) {
    const auto s = shape(x);
    return add(node("GlobalAveragePool", {x}, {s[0], s[1], 1, 1}));
  }

  int flatten(int x) {
    const auto s = shape(x);
    compiler::Node n = node("Flatten", {x}, {s[0], s[1] * s[2] * s[3]});
    n.attrs["axis"] = int64_t{1};
    return add(std::move(n));
  }

  int concat(int a, int b) {
    const auto s = shape(a);
    compiler::Node n = node("Concat", {a, b}, {s[0], s[1] + shape(b)[1], s[2], s[3]});
    n.attrs["axis"] = int64_t{1};
    return add(std::move(n));
  }

  // ---- attention (rank-3 activations [B, S, F], as attention-layout leaves them) ----

  /// x [..., K] times a constant [K, n_out] plus a constant bias (fuse-bias's three-input MatMul).
  int matmul(int x, int64_t n_out) {
    std::vector<int64_t> y = shape(x);
    const int64_t k = y.back();
    y.back() = n_out;
    const int w = constant({k, n_out}, 1.0f / static_cast<float>(std::sqrt(static_cast<double>(k))));
    return add(node("MatMul", {x, w, constant({n_out}, 0.1f)}, y));
  }
  /// A product of two activations, a [B, M, K] times b [B, K, N] (or b [B, N, K] with transB).
  int matmulActivations(int a, int b, bool transB) {
    std::vector<int64_t> y = shape(a);
    y.back() = transB ? shape(b)[1] : shape(b)[2];
    compiler::Node n = node("MatMul", {a, b}, y);
    if (transB) n.attrs["transB"] = int64_t{1};
    return add(std::move(n));
  }
  int softmax(int x) {
    compiler::Node n = node("Softmax", {x}, shape(x));
    n.attrs["axis"] = int64_t{-1};
    return add(std::move(n));
  }
  int layerNorm(int x) {
    const int64_t c = shape(x).back();
    compiler::Node n = node("LayerNormalization", {x, constant({c}, 1.5f), constant({c}, 0.5f)}, shape(x));
    n.attrs["axis"] = int64_t{-1};
    n.attrs["epsilon"] = 1e-5f;
    return add(std::move(n));
  }
  int reshape(int x, const std::vector<int64_t>& to) {
    compiler::Value v;
    v.name = "shape" + std::to_string(counter_++);
    v.type = compiler::ElemType::Int64;
    v.shape = {static_cast<int64_t>(to.size())};
    v.is_constant = true;
    v.data.resize(to.size() * sizeof(int64_t));
    std::memcpy(v.data.data(), to.data(), v.data.size());
    return add(node("Reshape", {x, g_.addValue(std::move(v))}, to));
  }
  /// [A, B, C] -> [B, A, C] (the heads split and merged).
  int transposeRows(int x) {
    const auto s = shape(x);
    compiler::Node n = node("Transpose", {x}, {s[1], s[0], s[2]});
    n.attrs["perm"] = std::vector<int64_t>{1, 0, 2};
    return add(std::move(n));
  }

  compiler::Graph finish(int output) {
    g_.outputs.push_back(output);
    compiler::resolveAutoPad(g_);
    g_.verify();
    return std::move(g_);
  }

  const std::vector<int64_t>& shape(int v) const { return g_.values[static_cast<size_t>(v)].shape; }
  std::mt19937_64& rng() { return rng_; }

 private:
  /// A Conv of kernel kh x kw with an output of `hw`; its caller sets strides, pads, dilations.
  compiler::Node convNode(int x, int64_t oc, int64_t kh, int64_t kw, int64_t group, bool relu,
                          std::vector<int64_t> hw) {
    const int64_t ic = shape(x)[1];
    const int w = constant({oc, ic / group, kh, kw},
                           1.0f / static_cast<float>(std::sqrt(static_cast<double>(ic / group * kh * kw))));
    const int b = constant({oc}, 0.1f);
    compiler::Node n = node("Conv", {x, w, b}, {shape(x)[0], oc, hw[0], hw[1]});
    n.attrs["kernel_shape"] = std::vector<int64_t>{kh, kw};
    n.attrs["dilations"] = std::vector<int64_t>{1, 1};
    n.attrs["group"] = group;
    if (relu) n.attrs["activation"] = std::string("relu");
    return n;
  }
  /// Output H and W of a SAME-padded window: ceil(in / stride).
  std::vector<int64_t> sameSize(int x, int64_t stride) const {
    const auto s = shape(x);
    return {(s[2] + stride - 1) / stride, (s[3] + stride - 1) / stride};
  }
  int value(const std::string& name, std::vector<int64_t> shape) {
    compiler::Value v;
    v.name = name;
    v.shape = std::move(shape);
    return g_.addValue(std::move(v));
  }
  compiler::Node node(const std::string& op, std::vector<int> inputs, std::vector<int64_t> outShape) {
    compiler::Node n;
    n.op = op;
    n.name = op + "_" + std::to_string(counter_++);
    n.inputs = std::move(inputs);
    n.outputs = {value(n.name + "_out", std::move(outShape))};
    return n;
  }
  int add(compiler::Node n) {
    const int out = n.outputs[0];
    g_.addNode(std::move(n));
    return out;
  }

  compiler::Graph g_;
  std::mt19937_64 rng_;
  int counter_ = 0;
};

}  // namespace systole::testing
