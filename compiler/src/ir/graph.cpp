// Algorithm: the graph is two arrays (values, nodes) with integer ids; topological order by
// Kahn's algorithm over producer edges (ties broken by node index, so printing is stable);
// compaction keeps live nodes and the values they, the inputs or the outputs refer to.
#include "systole/compiler/graph.h"

#include <algorithm>
#include <iomanip>
#include <queue>
#include <sstream>

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

std::string_view elemTypeName(ElemType t) {
  switch (t) {
    case ElemType::Float32: return "f32";
    case ElemType::Int8: return "i8";
    case ElemType::Int16: return "i16";
    case ElemType::Int32: return "i32";
    case ElemType::Int64: return "i64";
    case ElemType::Bool: return "bool";
  }
  return "?";
}

int elemTypeBytes(ElemType t) {
  switch (t) {
    case ElemType::Int8:
    case ElemType::Bool: return 1;
    case ElemType::Int16: return 2;
    case ElemType::Int64: return 8;
    default: return 4;
  }
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

int64_t shapeElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      throw Error("the shape " + shapeText(shape) + " has more elements than int64 counts");
  return n;
}

void checkTensorSize(const std::vector<int64_t>& shape, const std::string& what) {
  for (int64_t d : shape)
    if (d < 0) throw Error(what + " has the shape " + shapeText(shape) + ", with a negative dimension");
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return;  // empty, whatever the other dimensions
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxTensorElements)
      throw Error(what + " has the shape " + shapeText(shape) + ", more than the limit of " +
                  std::to_string(kMaxTensorElements) + " elements per tensor");
}

int64_t Value::elements() const { return shapeElements(shape); }

int64_t Node::getInt(const std::string& attr, int64_t fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (auto* d = std::get_if<double>(&it->second)) return static_cast<int64_t>(*d);
  return fallback;
}

double Node::getFloat(const std::string& attr, double fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<double>(&it->second)) return *v;
  if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return fallback;
}

std::string Node::getString(const std::string& attr, const std::string& fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::string>(&it->second)) return *v;
  return fallback;
}

std::vector<int64_t> Node::getInts(const std::string& attr, std::vector<int64_t> fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  return fallback;
}

std::vector<double> Node::getFloats(const std::string& attr, std::vector<double> fallback) const {
  auto it = attrs.find(attr);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::vector<double>>(&it->second)) return *v;
  return fallback;
}

int Graph::addValue(Value v) {
  values.push_back(std::move(v));
  return static_cast<int>(values.size()) - 1;
}

int Graph::addNode(Node n) {
  const int id = static_cast<int>(nodes.size());
  for (int out : n.outputs) values[static_cast<size_t>(out)].producer = id;
  nodes.push_back(std::move(n));
  return id;
}

int Graph::findValue(const std::string& name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<int> Graph::topoOrder() const {
  std::vector<int> pending(nodes.size(), 0);
  std::vector<std::vector<int>> consumers(nodes.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].dead) continue;
    for (int in : nodes[n].inputs) {
      if (in < 0) continue;
      const int p = values[static_cast<size_t>(in)].producer;
      if (p >= 0 && !nodes[static_cast<size_t>(p)].dead) {
        ++pending[n];
        consumers[static_cast<size_t>(p)].push_back(static_cast<int>(n));
      }
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (size_t n = 0; n < nodes.size(); ++n)
    if (!nodes[n].dead && pending[n] == 0) ready.push(static_cast<int>(n));
  std::vector<int> order;
  while (!ready.empty()) {
    const int n = ready.top();
    ready.pop();
    order.push_back(n);
    for (int c : consumers[static_cast<size_t>(n)])
      if (--pending[static_cast<size_t>(c)] == 0) ready.push(c);
  }
  return order;
}

std::vector<std::vector<int>> Graph::users() const {
  std::vector<std::vector<int>> u(values.size());
  for (size_t n = 0; n < nodes.size(); ++n)
    if (!nodes[n].dead)
      for (int in : nodes[n].inputs)
        if (in >= 0) u[static_cast<size_t>(in)].push_back(static_cast<int>(n));
  return u;
}

void Graph::compact() {
  std::vector<int> order = topoOrder();
  std::vector<int> valueMap(values.size(), -1);
  Graph out;
  out.opset = opset;
  auto keep = [&](int v) {
    if (v < 0) return -1;
    int& m = valueMap[static_cast<size_t>(v)];
    if (m < 0) {
      Value moved = std::move(values[static_cast<size_t>(v)]);  // each value is kept once: moving, not copying, keeps
      moved.producer = -1;                                      // a big model's constants from being held twice
      m = out.addValue(std::move(moved));
    }
    return m;
  };
  for (int v : inputs) out.inputs.push_back(keep(v));
  for (int n : order) {
    Node node = std::move(nodes[static_cast<size_t>(n)]);
    for (int& in : node.inputs) in = keep(in);
    for (int& o : node.outputs) o = keep(o);
    out.addNode(std::move(node));
  }
  for (int v : outputs) out.outputs.push_back(keep(v));
  *this = std::move(out);
}

void Graph::verify() const {
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) throw Error("graph verifier: " + what);
  };
  const int nv = static_cast<int>(values.size());
  std::vector<int> producers(values.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    if (node.dead) continue;
    for (int in : node.inputs) check(in >= -1 && in < nv, "node '" + node.name + "' reads a value id out of range");
    check(!node.has("auto_pad"), "node '" + node.name + "' has auto_pad (resolveAutoPad makes it explicit pads)");
    for (int o : node.outputs) {
      check(o >= 0 && o < nv, "node '" + node.name + "' writes a value id out of range");
      check(producers[static_cast<size_t>(o)] < 0,
            "value '" + values[static_cast<size_t>(o)].name + "' has two producers");
      check(!values[static_cast<size_t>(o)].is_constant,
            "node '" + node.name + "' writes constant '" + values[static_cast<size_t>(o)].name + "'");
      producers[static_cast<size_t>(o)] = static_cast<int>(n);
    }
  }
  size_t live = 0;
  for (const auto& node : nodes) live += !node.dead;
  check(topoOrder().size() == live, "the graph has a cycle");
  for (int v : outputs) {
    check(v >= 0 && v < nv, "graph output id out of range");
    const Value& val = values[static_cast<size_t>(v)];
    const bool isInput = std::find(inputs.begin(), inputs.end(), v) != inputs.end();
    check(val.is_constant || isInput || producers[static_cast<size_t>(v)] >= 0,
          "graph output '" + val.name + "' is never computed");
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].dead) continue;
    for (int in : nodes[n].inputs) {
      if (in < 0) continue;
      const Value& val = values[static_cast<size_t>(in)];
      const bool isInput = std::find(inputs.begin(), inputs.end(), in) != inputs.end();
      check(val.is_constant || isInput || producers[static_cast<size_t>(in)] >= 0,
            "node '" + nodes[n].name + "' reads '" + val.name + "', which nothing computes");
    }
  }
}

namespace {

std::string describe(const Value& v) {
  std::ostringstream out;
  out << elemTypeName(v.type) << "[";
  for (size_t i = 0; i < v.shape.size(); ++i) out << (i ? "," : "") << v.shape[i];
  out << "]";
  if (v.quant) {
    const Quant& q = *v.quant;
    out << " q(";
    if (q.axis >= 0)
      out << "axis=" << q.axis << ", " << q.scale.size() << " scales";
    else
      out << "s=" << std::setprecision(6) << q.scale.at(0) << ", z=" << q.zero_point.at(0);
    out << ")";
  }
  return out.str();
}

std::string attrText(const AttrValue& a) {
  std::ostringstream out;
  out << std::setprecision(6);
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>)
          out << '"' << v << '"';
        else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>)
          out << v;
        else {
          out << "[";
          const size_t shown = std::min<size_t>(v.size(), 8);
          for (size_t i = 0; i < shown; ++i) out << (i ? "," : "") << v[i];
          if (v.size() > shown) out << ",...(" << v.size() << ")";
          out << "]";
        }
      },
      a);
  return out.str();
}

}  // namespace

std::string Graph::print() const {
  std::ostringstream out;
  auto name = [&](int v) { return v < 0 ? std::string("_") : "%" + values[static_cast<size_t>(v)].name; };
  out << "graph(opset " << opset << ")\n";
  for (int v : inputs) out << "  input " << name(v) << ": " << describe(values[static_cast<size_t>(v)]) << "\n";
  const auto u = users();
  for (size_t v = 0; v < values.size(); ++v)
    if (values[v].is_constant && !u[v].empty())
      out << "  const " << name(static_cast<int>(v)) << ": " << describe(values[v]) << "\n";
  for (int n : topoOrder()) {
    const Node& node = nodes[static_cast<size_t>(n)];
    out << "  ";
    for (size_t i = 0; i < node.outputs.size(); ++i) out << (i ? ", " : "") << name(node.outputs[i]);
    out << " = " << node.op << "(";
    for (size_t i = 0; i < node.inputs.size(); ++i) out << (i ? ", " : "") << name(node.inputs[i]);
    out << ")";
    if (!node.attrs.empty()) {
      out << " {";
      bool first = true;
      for (const auto& [k, a] : node.attrs) {
        out << (first ? "" : ", ") << k << "=" << attrText(a);
        first = false;
      }
      out << "}";
    }
    out << " : ";
    for (size_t i = 0; i < node.outputs.size(); ++i)
      out << (i ? ", " : "") << describe(values[static_cast<size_t>(node.outputs[i])]);
    out << "\n";
  }
  for (int v : outputs) out << "  output " << name(v) << "\n";
  return out.str();
}

}  // namespace systole::compiler
