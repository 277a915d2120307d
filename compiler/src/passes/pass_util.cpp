// Algorithm: the rewriting primitives of pass_util.h. Readers are found by scanning the live nodes
// (graphs here have at most a few thousand nodes, and passes refresh their Uses after rewrites).
#include "passes/pass_util.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace systole::compiler::passes {

std::string uniqueName(const Graph& g, const std::string& base) {
  std::unordered_set<std::string> names;
  for (const auto& v : g.values) names.insert(v.name);
  if (!names.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "." + std::to_string(i);
    if (!names.count(candidate)) return candidate;
  }
}

int addFloatConstant(Graph& g, const std::string& baseName, std::vector<int64_t> shape,
                     const std::vector<float>& data) {
  Value v;
  v.name = uniqueName(g, baseName);
  v.type = ElemType::Float32;
  v.shape = std::move(shape);
  v.is_constant = true;
  v.data.resize(data.size() * sizeof(float));
  std::memcpy(v.data.data(), data.data(), v.data.size());
  return g.addValue(std::move(v));
}

int addInt64Constant(Graph& g, const std::string& baseName, const std::vector<int64_t>& data) {
  Value c;
  c.name = uniqueName(g, baseName);
  c.type = ElemType::Int64;
  c.shape = {static_cast<int64_t>(data.size())};
  c.is_constant = true;
  c.data.resize(data.size() * sizeof(int64_t));
  std::memcpy(c.data.data(), data.data(), c.data.size());
  return g.addValue(std::move(c));
}

int addActivation(Graph& g, const std::string& baseName, std::vector<int64_t> shape) {
  Value v;
  v.name = uniqueName(g, baseName);
  v.shape = std::move(shape);
  return g.addValue(std::move(v));
}

int addNode(Graph& g, const std::string& name, OpType op, std::vector<int> inputs, const std::vector<int64_t>& shape,
            std::map<std::string, AttrValue> attrs, int out) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.outputs = {out >= 0 ? out : addActivation(g, name + "_output", shape)};
  const int v = n.outputs[0];
  g.addNode(std::move(n));
  return v;
}

int addSlice(Graph& g, const std::string& name, int input, int64_t begin, int64_t end, int64_t axis,
             std::vector<int64_t> shape, int out) {
  if (g.opset < 10)
    return addNode(g, name, Op::Slice, {input}, shape,
                   {{"starts", std::vector<int64_t>{begin}},
                    {"ends", std::vector<int64_t>{end}},
                    {"axes", std::vector<int64_t>{axis}}},
                   out);
  const int starts = addInt64Constant(g, name + "_start", {begin});
  const int ends = addInt64Constant(g, name + "_end", {end});
  const int axes = addInt64Constant(g, name + "_axis", {axis});
  return addNode(g, name, Op::Slice, {input, starts, ends, axes}, shape, {}, out);
}

void replaceUses(Graph& g, int from, int to) {
  for (auto& n : g.nodes) {
    if (n.dead) continue;
    for (int& in : n.inputs)
      if (in == from) in = to;
  }
  for (int& o : g.outputs)
    if (o == from) o = to;
}

bool bypass(Graph& g, int n, int from, int to) {
  const bool fromIsOutput = std::find(g.outputs.begin(), g.outputs.end(), from) != g.outputs.end();
  if (!fromIsOutput) {
    node(g, n).dead = true;
    replaceUses(g, from, to);
    return true;
  }
  const bool toIsInput = std::find(g.inputs.begin(), g.inputs.end(), to) != g.inputs.end();
  const bool toIsOutput = std::find(g.outputs.begin(), g.outputs.end(), to) != g.outputs.end();
  if (toIsInput || toIsOutput) return false;
  node(g, n).dead = true;
  Value& out = val(g, from);
  if (val(g, to).is_constant) {
    out.is_constant = true;
    out.data = val(g, to).data;
    out.type = val(g, to).type;
    out.shape = val(g, to).shape;
    out.producer = -1;
    return true;
  }
  const int p = producerOp(g, to);
  if (p < 0) {
    node(g, n).dead = false;
    return false;
  }
  for (int& o : node(g, p).outputs)
    if (o == to) o = from;
  out.producer = p;
  replaceUses(g, to, from);
  val(g, to).producer = -1;
  return true;
}

void absorb(Graph& g, int keeper, int absorbed) {
  Node& k = node(g, keeper);
  Node& a = node(g, absorbed);
  const int result = a.outputs.at(0);
  val(g, k.outputs.at(0)).producer = -1;  // the intermediate value is orphaned
  k.outputs.at(0) = result;
  val(g, result).producer = keeper;
  a.dead = true;
}

std::optional<BnParams> batchNormParams(const Graph& g, const Node& bn) {
  if (bn.inputs.size() < 5 || bn.outputs.size() != 1) return std::nullopt;  // training-mode outputs
  if (bn.getInt("training_mode", 0) != 0 || bn.getInt("spatial", 1) != 1) return std::nullopt;
  for (size_t k = 1; k < 5; ++k)
    if (!isFloatConst(g, bn.inputs[k])) return std::nullopt;
  BnParams p;
  p.gamma = floats(g, bn.inputs[1]);
  p.beta = floats(g, bn.inputs[2]);
  p.mean = floats(g, bn.inputs[3]);
  const auto var = floats(g, bn.inputs[4]);
  const double eps = bn.getFloat("epsilon", 1e-5);
  for (size_t c = 0; c < var.size(); ++c)
    p.s.push_back(static_cast<float>(p.gamma[c] / std::sqrt(static_cast<double>(var[c]) + eps)));
  return p;
}

}  // namespace systole::compiler::passes
