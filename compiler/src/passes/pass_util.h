// Small graph-rewriting helpers shared by the passes: who reads a value, constants in and out,
// removing a node while its readers move to another value, one node taking over another's output.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "systole/compiler/float_ops.h"
#include "systole/compiler/graph.h"
#include "systole/compiler/passes.h"

namespace systole::compiler::passes {

/// Live readers of every value and which values are graph outputs; refresh() after rewrites.
class Uses {
 public:
  explicit Uses(const Graph& g) : g_(g) { refresh(); }
  void refresh() {
    users_ = g_.users();
    isOutput_.assign(g_.values.size(), false);
    for (int v : g_.outputs) isOutput_[static_cast<size_t>(v)] = true;
  }
  const std::vector<int>& of(int v) const { return users_[static_cast<size_t>(v)]; }
  bool isGraphOutput(int v) const { return isOutput_[static_cast<size_t>(v)]; }
  /// The one live node reading `v` (counting a node once), if `v` is not also a graph output.
  int single(int v) const {
    const auto& u = of(v);
    if (u.empty() || isGraphOutput(v)) return -1;
    for (int n : u)
      if (n != u[0]) return -1;
    return u[0];
  }

 private:
  const Graph& g_;
  std::vector<std::vector<int>> users_;
  std::vector<bool> isOutput_;
};

inline Value& val(Graph& g, int v) { return g.values[static_cast<size_t>(v)]; }
inline const Value& val(const Graph& g, int v) { return g.values[static_cast<size_t>(v)]; }
inline Node& node(Graph& g, int n) { return g.nodes[static_cast<size_t>(n)]; }

inline bool isConst(const Graph& g, int v) { return v >= 0 && val(g, v).is_constant; }
inline bool isFloatConst(const Graph& g, int v) { return isConst(g, v) && val(g, v).type == ElemType::Float32; }

/// The live node producing `v` if its op is `op` (any op when Unknown), else -1.
inline int producerOp(const Graph& g, int v, Op op = Op::Unknown) {
  if (v < 0) return -1;
  const int p = val(g, v).producer;
  if (p < 0 || g.nodes[static_cast<size_t>(p)].dead) return -1;
  if (op != Op::Unknown && g.nodes[static_cast<size_t>(p)].op.kind() != op) return -1;
  return p;
}

/// A float constant's values.
inline std::vector<float> floats(const Graph& g, int v) {
  const Value& c = val(g, v);
  std::vector<float> out(static_cast<size_t>(c.elements()));
  std::memcpy(out.data(), c.data.data(), out.size() * sizeof(float));
  return out;
}

/// The value of a float constant holding exactly one element.
inline std::optional<float> scalar(const Graph& g, int v) {
  if (!isFloatConst(g, v) || val(g, v).elements() != 1) return std::nullopt;
  return floats(g, v)[0];
}

inline bool near(std::optional<float> x, double target, double tol = 1e-4) {
  return x && std::abs(static_cast<double>(*x) - target) <= tol * std::max(1.0, std::abs(target));
}

/// An inference BatchNormalization as y = x * s + (beta - mean * s) per channel.
struct BnParams {
  std::vector<float> scale, shift;  // y = x * scale + shift per channel
  std::vector<float> mean, gamma, beta, s;
};

/// The parameters of an inference BatchNormalization with constant inputs, else nullopt.
std::optional<BnParams> batchNormParams(const Graph& g, const Node& bn);

/// A value name not used yet, derived from `base`.
std::string uniqueName(const Graph& g, const std::string& base);

/// Adds a float constant.
int addFloatConstant(Graph& g, const std::string& baseName, std::vector<int64_t> shape, const std::vector<float>& data);

/// Adds an int64 constant (a shape, pads, slice bounds).
int addInt64Constant(Graph& g, const std::string& baseName, const std::vector<int64_t>& data);

/// Adds a float activation value of `shape`, produced by a node the caller adds.
int addActivation(Graph& g, const std::string& baseName, std::vector<int64_t> shape);

/// Adds node `op` named `name` over `inputs` (with `attrs`), writing `out`, or a new activation of
/// `shape` when `out` is -1; returns the value it writes.
int addNode(Graph& g, const std::string& name, OpType op, std::vector<int> inputs, const std::vector<int64_t>& shape,
            std::map<std::string, AttrValue> attrs = {}, int out = -1);

/// A Slice of [begin, end) of `axis` of `input` (attributes before opset 10, constant inputs from
/// it on) writing `out`, or a new value of `shape`; returns the output.
int addSlice(Graph& g, const std::string& name, int input, int64_t begin, int64_t end, int64_t axis,
             std::vector<int64_t> shape, int out = -1);

/// Every live reader of `from` (and the graph outputs) reads `to` instead.
void replaceUses(Graph& g, int from, int to);

/// Removes node `n`, a pass-through from value `to` (its input) to `from` (its output), so that the
/// readers of `from` read `to`. A graph output keeps its name: then `to`'s producer writes `from`
/// directly, or `from` becomes a copy of constant `to`. Returns false (and leaves the graph alone)
/// when that is impossible: `to` is a graph input or also a graph output.
/// A Clip's bounds if they are known at compile time (attributes, or constant inputs from opset 11).
inline std::optional<std::pair<float, float>> constantClipBounds(const Graph& g, const Node& clip) {
  for (size_t k = 1; k < clip.inputs.size(); ++k)
    if (clip.inputs[k] >= 0 && !scalar(g, clip.inputs[k])) return std::nullopt;
  return ops::clipBounds(clip, g.opset, [&](size_t k) -> std::optional<float> {
    if (k >= clip.inputs.size() || clip.inputs[k] < 0) return std::nullopt;
    return scalar(g, clip.inputs[k]);
  });
}

/// The other input of a two-input node that reads `v`, else -1 (Add and Mul operands in either order).
inline int otherInput(const Node& n, int v) {
  if (n.inputs.size() != 2) return -1;
  if (n.inputs[0] == v) return n.inputs[1];
  if (n.inputs[1] == v) return n.inputs[0];
  return -1;
}

bool bypass(Graph& g, int n, int from, int to);

/// Node `keeper` takes over output 0 of `absorbed` (which reads keeper's output 0, its only reader)
/// and `absorbed` is removed: the fused node writes the final value under its original name.
void absorb(Graph& g, int keeper, int absorbed);

/// Recomputes node `n`'s output shapes and types (shape inference, src/passes/shape_inference.cpp);
/// throws Error naming the node on inconsistent shapes. False when not computable yet.
bool updateShapes(Graph& g, int n);

/// Derives a new node name from `like` (a "/scope/Op" name keeps its scope).
inline std::string nameLike(const std::string& like, const std::string& op) {
  const auto slash = like.rfind('/');
  if (slash != std::string::npos && slash + 1 < like.size()) return like.substr(0, slash + 1) + op;
  return like + "." + op;
}

}  // namespace systole::compiler::passes
