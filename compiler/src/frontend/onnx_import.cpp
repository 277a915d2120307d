// Algorithm: parse the file into onnx::ModelProto; check the IR version, the default-domain opset
// (9..17) and, node by node in file order, that each operator is supported and each input is
// defined earlier (so a missing initializer names its reader); check what ONNX would trust
// unchecked (initializer and tensor-attribute data against their dims and declared shapes, window
// attributes in range, sizes within kMaxTensorElements); bind symbolic input dimensions
// (--shape, else a symbolic batch is 1; any other is an error naming it);
// run onnx::checker::check_model, then onnx::shape_inference::InferShapes (strict, with data
// propagation, behind the preconditions of onnx_shape_guards.h); finally convert initializers and
// Constant nodes to constant values and every other node to a Graph node, taking each value's type
// and shape from the inferred value_info (a dimension ONNX could not infer is -1; an unknown rank is
// the one-dimension shape [-1]); last, resolve every `auto_pad` into explicit `pads` (auto_pad.h),
// so no later stage sees two conventions.
#include "systole/compiler/onnx_import.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <regex>
#include <unordered_map>
#include <unordered_set>

#include "frontend/onnx_shape_guards.h"
#include "ops/op_def.h"
#include "systole/compiler/auto_pad.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

const std::vector<std::string>& supportedOps() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (size_t i = 1; i < kOpCount; ++i)
      if (opDef(static_cast<Op>(i)).has(kImported)) out.emplace_back(opName(static_cast<Op>(i)));
    return out;
  }();
  return names;
}

bool isSupportedOp(std::string_view op) { return opDef(opFromName(op)).has(kImported); }

namespace {

std::string quote(const std::string& s) { return "'" + s + "'"; }

std::string nodeLabel(const onnx::NodeProto& n, int index) {
  const std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  return "node " + quote(name) + " (" + n.op_type() + ")";
}

/// Collapses ONNX's multi-line messages (checker context, aggregated inference errors) to one line.
std::string oneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  std::string out;
  for (char c : text)
    if (!(c == ' ' && (out.empty() || out.back() == ' '))) out += c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string stripTag(std::string text) {
  static const std::string tags[] = {"[ShapeInferenceError] ", "[TypeInferenceError] "};
  for (bool again = true; again;) {
    again = false;
    for (const auto& t : tags)
      for (size_t p; (p = text.find(t)) != std::string::npos; again = true) text.erase(p, t.size());
  }
  return text;
}

/// ONNX names a failing node as "(op_type:Add, node name: add0): reason"; rewrite that as the
/// compiler's "node 'add0' (Add): reason".
std::string describeInferenceError(const std::string& what) {
  std::string msg = oneLine(stripTag(what));
  static const std::regex nodeRe(R"(\(op_type:([^,]*), node name: ([^)]*)\): (.*))");
  std::smatch m;
  if (std::regex_search(msg, m, nodeRe)) {
    std::string reason = m[3].str();
    // Several errors are joined on one line; keep the first.
    if (auto next = reason.find(" (op_type:"); next != std::string::npos) reason.resize(next);
    return "node " + quote(m[2].str()) + " (" + m[1].str() + "): inconsistent shapes or types: " + reason;
  }
  return "shape inference failed: " + msg;
}

std::string describeCheckerError(const std::string& what) {
  const std::string msg = oneLine(what);
  static const std::regex ctxRe(R"((.*) ==> Context: Bad node spec for node\. Name: (.*) OpType: (\S+)$)");
  std::smatch m;
  if (std::regex_match(msg, m, ctxRe)) return "node " + quote(m[2].str()) + " (" + m[3].str() + "): " + m[1].str();
  return "invalid ONNX model: " + msg;
}

std::optional<ElemType> elemTypeOf(int32_t onnxType) {
  switch (onnxType) {
    case onnx::TensorProto::FLOAT: return ElemType::Float32;
    case onnx::TensorProto::INT8: return ElemType::Int8;
    case onnx::TensorProto::INT32: return ElemType::Int32;
    case onnx::TensorProto::INT64: return ElemType::Int64;
    case onnx::TensorProto::BOOL: return ElemType::Bool;
    default: return std::nullopt;
  }
}

std::string onnxTypeName(int32_t t) {
  if (onnx::TensorProto_DataType_IsValid(t))
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(t));
  return "type " + std::to_string(t);
}

/// The repeated field that holds a tensor's data when it has no raw_data.
int typedDataSize(const onnx::TensorProto& t, ElemType type) {
  switch (type) {
    case ElemType::Float32: return t.float_data_size();
    case ElemType::Int64: return t.int64_data_size();
    default: return t.int32_data_size();
  }
}

/// Checks an initializer's or a Constant's tensor before ONNX or the compiler reads its data: a
/// supported element type, data inline, dimensions >= 0 within kMaxTensorElements, and exactly
/// the data its dimensions need. Returns the element type.
ElemType checkTensor(const onnx::TensorProto& t, const std::string& who) {
  auto type = elemTypeOf(t.data_type());
  if (!type)
    throw Error(who + ": tensor " + quote(t.name()) + " has element type " + onnxTypeName(t.data_type()) +
                ", which is not supported");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error(who + ": tensor " + quote(t.name()) + " keeps its data in an external file, which is not supported");
  const std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  checkTensorSize(dims, who + ": tensor " + quote(t.name()));
  const int64_t n = shapeElements(dims);
  const size_t elemBytes = static_cast<size_t>(elemTypeBytes(*type));
  if (t.has_raw_data() && t.raw_data().size() % elemBytes != 0)
    throw Error(who + ": tensor " + quote(t.name()) + " has " + std::to_string(t.raw_data().size()) +
                " bytes of raw data, not a whole number of " + std::string(elemTypeName(*type)) + " elements");
  const size_t have = t.has_raw_data() ? t.raw_data().size() / elemBytes : static_cast<size_t>(typedDataSize(t, *type));
  if (have != static_cast<size_t>(n))
    throw Error(who + ": tensor " + quote(t.name()) + " holds " + std::to_string(have) +
                " elements' worth of data, its shape " + shapeText(dims) + " needs " + std::to_string(n));
  return *type;
}

/// Checks every tensor an attribute holds, whatever its declared type says (ONNX reads a field
/// that is set even when the type names another; issue 16 D8: tensor data whose size disagrees
/// with its type overflowed a buffer in ONNX's ParseData). Sparse tensors and graphs, which no
/// supported operator takes, are rejected before ONNX's checker or shape inference walks them.
void checkAttributeData(const onnx::AttributeProto& a, const std::string& who) {
  if (a.has_t()) checkTensor(a.t(), who + ": attribute " + quote(a.name()));
  for (const auto& t : a.tensors()) checkTensor(t, who + ": attribute " + quote(a.name()));
  if (a.has_sparse_tensor() || a.sparse_tensors_size() > 0)
    throw Error(who + ": attribute " + quote(a.name()) + " holds a sparse tensor, which is not supported");
  if (a.has_g() || a.graphs_size() > 0)
    throw Error(who + ": attribute " + quote(a.name()) + " holds a graph, which is not supported");
}

/// Converts an initializer or a Constant node's tensor (checked by checkTensor) into a constant value.
Value tensorToValue(const onnx::TensorProto& t, const std::string& valueName, const std::string& who) {
  Value v;
  v.name = valueName;
  v.is_constant = true;
  v.type = checkTensor(t, who);
  v.shape.assign(t.dims().begin(), t.dims().end());
  const int64_t n = v.elements();
  const size_t bytes = static_cast<size_t>(n) * static_cast<size_t>(elemTypeBytes(v.type));
  v.data.resize(bytes);
  if (t.has_raw_data()) {
    if (bytes) std::memcpy(v.data.data(), t.raw_data().data(), bytes);
    return v;
  }
  auto fill = [&](const auto& field, auto convert) {
    for (int64_t i = 0; i < n; ++i) {
      auto x = convert(field.Get(static_cast<int>(i)));
      std::memcpy(v.data.data() + static_cast<size_t>(i) * sizeof(x), &x, sizeof(x));
    }
  };
  switch (v.type) {
    case ElemType::Float32: fill(t.float_data(), [](float x) { return x; }); break;
    case ElemType::Int64: fill(t.int64_data(), [](int64_t x) { return x; }); break;
    case ElemType::Int32: fill(t.int32_data(), [](int32_t x) { return x; }); break;
    case ElemType::Int8: fill(t.int32_data(), [](int32_t x) { return static_cast<int8_t>(x); }); break;
    case ElemType::Int16: fill(t.int32_data(), [](int32_t x) { return static_cast<int16_t>(x); }); break;
    case ElemType::Bool: fill(t.int32_data(), [](int32_t x) { return static_cast<uint8_t>(x != 0); }); break;
  }
  return v;
}

/// Conv, ConvTranspose and pooling window attributes, checked before ONNX's shape inference divides
/// by or multiplies with them: kernel_shape, strides, dilations, group and output_shape in
/// [1, kMaxTensorElements], pads and output_padding in [0, kMaxTensorElements].
void checkWindowAttributes(const onnx::NodeProto& n, const std::string& who) {
  const Op op = opFromName(n.op_type());
  if (op != Op::Conv && op != Op::ConvTranspose && op != Op::MaxPool && op != Op::AveragePool) return;
  for (const auto& a : n.attribute()) {
    const bool positive = a.name() == "kernel_shape" || a.name() == "strides" || a.name() == "dilations" ||
                          a.name() == "group" || a.name() == "output_shape";
    if (!positive && a.name() != "pads" && a.name() != "output_padding") continue;
    const bool scalar = a.name() == "group";
    if (a.type() != (scalar ? onnx::AttributeProto::INT : onnx::AttributeProto::INTS))
      throw Error(who + ": attribute " + quote(a.name()) + " must be " +
                  (scalar ? "an integer" : "a list of integers"));
    const std::vector<int64_t> values =
        scalar ? std::vector<int64_t>{a.i()} : std::vector<int64_t>(a.ints().begin(), a.ints().end());
    const int64_t lo = positive ? 1 : 0;
    for (int64_t v : values)
      if (v < lo || v > kMaxTensorElements)
        throw Error(who + ": attribute " + quote(a.name()) + " is " + (scalar ? std::to_string(v) : shapeText(values)) +
                    (scalar ? "; it must be in [" : "; each value must be in [") + std::to_string(lo) + ", " +
                    std::to_string(kMaxTensorElements) + "]");
  }
}

/// The number a one-element constant holds.
double scalarOf(const Value& v) {
  switch (v.type) {
    case ElemType::Float32: return *v.as<float>();
    case ElemType::Int64: return static_cast<double>(*v.as<int64_t>());
    case ElemType::Int32: return *v.as<int32_t>();
    case ElemType::Int8: return *v.as<int8_t>();
    case ElemType::Int16: return *v.as<int16_t>();
    case ElemType::Bool: return *v.as<uint8_t>();
  }
  return 0;
}

/// A Constant node's value attribute (value, value_float(s), value_int(s)) as a tensor.
onnx::TensorProto constantTensor(const onnx::NodeProto& n, const std::string& who) {
  for (const auto& a : n.attribute()) {
    onnx::TensorProto t;
    if (a.name() == "value") return a.t();
    if (a.name() == "value_float") {
      t.set_data_type(onnx::TensorProto::FLOAT);
      t.add_float_data(a.f());
      return t;
    }
    if (a.name() == "value_floats") {
      t.set_data_type(onnx::TensorProto::FLOAT);
      t.add_dims(a.floats_size());
      for (float f : a.floats()) t.add_float_data(f);
      return t;
    }
    if (a.name() == "value_int") {
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_int64_data(a.i());
      return t;
    }
    if (a.name() == "value_ints") {
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_dims(a.ints_size());
      for (int64_t i : a.ints()) t.add_int64_data(i);
      return t;
    }
    throw Error(who + ": Constant attribute " + quote(a.name()) + " is not supported");
  }
  throw Error(who + ": Constant without a value");
}

std::vector<int64_t> shapeOf(const onnx::TypeProto& type) {
  if (!type.tensor_type().has_shape()) return {-1};  // unknown rank
  std::vector<int64_t> shape;
  for (const auto& d : type.tensor_type().shape().dim()) shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return shape;
}

class Importer {
 public:
  Importer(std::string name, const ImportOptions& options) : file_(std::move(name)), options_(options) {}

  Graph run(onnx::ModelProto& model) {
    try {
      checkHeader(model);
      checkNodes(model.graph());
      checkData(model.graph());
      bindInputs(*model.mutable_graph());
      runChecker(model);
      runShapeInference(model);
      return convert(model);
    } catch (const Error& e) {
      throw inFile(e, file_);
    }
  }

 private:
  void checkHeader(const onnx::ModelProto& model) {
    if (model.ir_version() <= 0 || !model.has_graph()) throw Error("not an ONNX model (no IR version or no graph)");
    bool found = false;
    for (const auto& imp : model.opset_import()) {
      if (imp.domain() != "" && imp.domain() != "ai.onnx") continue;
      found = true;
      opset_ = imp.version();
    }
    if (!found) throw Error("the model imports no opset of the default ONNX domain");
    if (opset_ < kMinOpset || opset_ > kMaxOpset)
      throw Error("opset " + std::to_string(opset_) + " is not supported (supported: " + std::to_string(kMinOpset) +
                  " to " + std::to_string(kMaxOpset) + ")");
  }

  /// Unsupported operators and undefined inputs, named by node, before ONNX's checker words them.
  void checkNodes(const onnx::GraphProto& g) {
    std::unordered_set<std::string> defined;
    for (const auto& t : g.initializer()) defined.insert(t.name());
    for (const auto& in : g.input()) defined.insert(in.name());
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& n = g.node(i);
      const bool defaultDomain = n.domain().empty() || n.domain() == "ai.onnx";
      if (!defaultDomain || !isSupportedOp(n.op_type()))
        throw Error(nodeLabel(n, i) + ": unsupported operator" +
                    (defaultDomain ? "" : " (domain " + quote(n.domain()) + ")"));
      if (const int since = opDef(opFromName(n.op_type())).since_opset; opset_ < since)
        throw Error(nodeLabel(n, i) + ": unsupported operator at opset " + std::to_string(opset_) +
                    " (it is defined from opset " + std::to_string(since) + ")");
      for (const auto& in : n.input())
        if (!in.empty() && !defined.count(in))
          throw Error(nodeLabel(n, i) + ": input " + quote(in) +
                      " is neither a graph input, an initializer nor an earlier node's output (missing initializer?)");
      for (const auto& out : n.output()) defined.insert(out);
    }
    for (const auto& out : g.output())
      if (!defined.count(out.name())) throw Error("graph output " + quote(out.name()) + " is never computed");
  }

  /// What ONNX's shape inference would trust unchecked: each initializer's and tensor attribute's
  /// data (checkTensor), an initializer's dimensions against a shape the graph declares for it
  /// (inputs, value_info, outputs), and window attributes (checkWindowAttributes).
  void checkData(const onnx::GraphProto& g) {
    std::unordered_map<std::string, const onnx::ValueInfoProto*> declared;
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
      for (const auto& vi : *list) declared.emplace(vi.name(), &vi);
    if (g.sparse_initializer_size() > 0)
      throw Error("initializer " + quote(g.sparse_initializer(0).values().name()) +
                  " is a sparse tensor, which is not supported");
    for (const auto& t : g.initializer()) {
      const std::string who = "initializer " + quote(t.name());
      checkTensor(t, who);
      auto it = declared.find(t.name());
      if (it == declared.end() || !it->second->type().tensor_type().has_shape()) continue;
      const auto& shape = it->second->type().tensor_type().shape();
      bool agrees = shape.dim_size() == t.dims_size();
      for (int k = 0; agrees && k < shape.dim_size(); ++k)
        agrees = !shape.dim(k).has_dim_value() || shape.dim(k).dim_value() == t.dims(k);
      if (!agrees)
        throw Error(who + " has the shape " + shapeText({t.dims().begin(), t.dims().end()}) +
                    ", but the graph declares " + shapeText(shapeOf(it->second->type())));
    }
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& n = g.node(i);
      const std::string who = nodeLabel(n, i);
      for (const auto& a : n.attribute()) checkAttributeData(a, who);
      checkWindowAttributes(n, who);
    }
  }

  void bindInputs(onnx::GraphProto& g) {
    for (const auto& entry : options_.input_shapes) {
      const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one
      if (std::none_of(g.input().begin(), g.input().end(), [&](const auto& in) { return in.name() == name; }))
        throw Error("--shape " + name + ": the model has no input named " + quote(name));
    }
    std::unordered_set<std::string> inits;
    for (const auto& t : g.initializer()) inits.insert(t.name());
    for (auto& in : *g.mutable_input()) {
      if (inits.count(in.name())) continue;
      const auto& tt = in.type().tensor_type();
      if (!in.type().has_tensor_type()) throw Error("graph input " + quote(in.name()) + " is not a tensor");
      if (tt.elem_type() != onnx::TensorProto::FLOAT)
        throw Error("graph input " + quote(in.name()) + " has element type " + onnxTypeName(tt.elem_type()) +
                    "; only float32 models are supported");
      if (!tt.has_shape()) throw Error("graph input " + quote(in.name()) + " has no shape");
      bindShape(in.name(), *in.mutable_type()->mutable_tensor_type()->mutable_shape());
    }
  }

  /// Binds an input's dimensions: from --shape, else a symbolic leading (batch) dimension is 1.
  void bindShape(const std::string& name, onnx::TensorShapeProto& shape) {
    auto given = options_.input_shapes.find(name);
    if (given != options_.input_shapes.end() && static_cast<size_t>(shape.dim_size()) != given->second.size())
      throw Error("--shape " + name + ": the input has " + std::to_string(shape.dim_size()) + " dimensions, not " +
                  std::to_string(given->second.size()));
    for (int k = 0; k < shape.dim_size(); ++k) {
      auto& d = *shape.mutable_dim(k);
      const bool fixed = d.has_dim_value() && d.dim_value() > 0;
      const std::string what = "graph input " + quote(name) + " dimension " + std::to_string(k) +
                               (d.has_dim_param() ? " (" + quote(d.dim_param()) + ")" : "");
      if (given != options_.input_shapes.end()) {
        const int64_t want = given->second[static_cast<size_t>(k)];
        if (fixed && d.dim_value() != want)
          throw Error(what + " is " + std::to_string(d.dim_value()) + ", but --shape gives " + std::to_string(want));
        d.set_dim_value(want);
      } else if (!fixed && k == 0) {
        d.set_dim_value(1);
      } else if (!fixed) {
        throw Error(what + " is symbolic: bind it with --shape " + name + "=DxDx...");
      }
    }
    std::vector<int64_t> dims;
    for (const auto& d : shape.dim()) dims.push_back(d.dim_value());
    checkTensorSize(dims, "graph input " + quote(name));
  }

  void runChecker(const onnx::ModelProto& model) {
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      throw Error(describeCheckerError(e.what()));
    }
  }

  void runShapeInference(onnx::ModelProto& model) {
    try {
      installShapeInferenceGuards();
      onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1, /*enable_data_propagation=*/true);
      onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      throw Error(describeInferenceError(e.what()));
    }
  }

  int valueId(const std::string& name) const {
    auto it = ids_.find(name);
    return it == ids_.end() ? -1 : it->second;
  }

  int define(Graph& g, Value v) {
    const std::string name = v.name;
    const int id = g.addValue(std::move(v));
    ids_[name] = id;
    return id;
  }

  Graph convert(onnx::ModelProto& model) {
    Graph g;
    g.opset = opset_;
    auto& gp = *model.mutable_graph();
    std::unordered_map<std::string, const onnx::TypeProto*> types;
    for (const auto& vi : gp.value_info()) types[vi.name()] = &vi.type();
    for (const auto& vi : gp.output()) types[vi.name()] = &vi.type();
    for (const auto& vi : gp.input()) types[vi.name()] = &vi.type();
    std::unordered_set<std::string> used;  // values something reads (an unread Dropout mask may be bool)
    for (const auto& n : gp.node())
      for (const auto& in : n.input()) used.insert(in);
    for (const auto& out : gp.output()) used.insert(out.name());

    for (auto& t : *gp.mutable_initializer()) {
      define(g, tensorToValue(t, t.name(), "initializer " + quote(t.name())));
      std::string().swap(*t.mutable_raw_data());  // the bytes live in the graph now; clear() would keep their capacity
    }
    for (const auto& in : gp.input()) {
      if (ids_.count(in.name())) continue;  // an initializer listed as input (IR < 4)
      Value v;
      v.name = in.name();
      v.shape = shapeOf(in.type());
      g.inputs.push_back(define(g, std::move(v)));
    }
    for (int i = 0; i < gp.node_size(); ++i) {
      const auto& n = gp.node(i);
      const std::string who = nodeLabel(n, i);
      if (n.op_type() == "Constant") {
        if (n.output_size() != 1) throw Error(who + ": a Constant has one output");
        define(g, tensorToValue(constantTensor(n, who), n.output(0), who));
        continue;
      }
      Node node;
      node.name = n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
      node.op = n.op_type();
      for (const auto& in : n.input()) node.inputs.push_back(in.empty() ? -1 : valueId(in));
      for (const auto& a : n.attribute()) convertAttribute(node, a, who);
      for (int k = 0; k < n.output_size(); ++k) {
        Value v;
        v.name = n.output(k).empty() ? node.name + ":" + std::to_string(k) : n.output(k);
        if (auto it = types.find(n.output(k)); it != types.end() && !n.output(k).empty()) {
          const auto* type = it->second;
          if (type->tensor_type().elem_type() != 0) {
            auto et = elemTypeOf(type->tensor_type().elem_type());
            if (!et && !used.count(n.output(k))) et = ElemType::Float32;
            if (!et)
              throw Error(who + ": output " + quote(v.name) + " has element type " +
                          onnxTypeName(type->tensor_type().elem_type()) + ", which is not supported");
            v.type = *et;
          }
          v.shape = shapeOf(*type);
        } else {
          v.shape = {-1};
        }
        node.outputs.push_back(define(g, std::move(v)));
      }
      g.addNode(std::move(node));
    }
    for (const auto& out : gp.output()) g.outputs.push_back(valueId(out.name()));
    resolveAutoPad(g);
    return g;
  }

  static void convertAttribute(Node& node, const onnx::AttributeProto& a, const std::string& who) {
    switch (a.type()) {
      case onnx::AttributeProto::INT: node.attrs[a.name()] = static_cast<int64_t>(a.i()); break;
      case onnx::AttributeProto::FLOAT: node.attrs[a.name()] = static_cast<double>(a.f()); break;
      case onnx::AttributeProto::STRING: node.attrs[a.name()] = a.s(); break;
      case onnx::AttributeProto::INTS:
        node.attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
        break;
      case onnx::AttributeProto::FLOATS: {
        std::vector<double> f(a.floats().begin(), a.floats().end());
        node.attrs[a.name()] = std::move(f);
        break;
      }
      case onnx::AttributeProto::TENSOR: {
        // A one-element tensor (ConstantOfShape's `value`): its number, and its ONNX type as
        // `<name>_type`.
        const Value v = tensorToValue(a.t(), a.name(), who);
        if (v.elements() != 1) throw Error(who + ": attribute " + quote(a.name()) + " must hold one element");
        node.attrs[a.name()] = scalarOf(v);
        node.attrs[a.name() + "_type"] = static_cast<int64_t>(a.t().data_type());
        break;
      }
      default: throw Error(who + ": attribute " + quote(a.name()) + " has a type the compiler does not support");
    }
  }

  std::string file_;
  const ImportOptions& options_;
  int64_t opset_ = 0;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace

std::vector<int64_t> parseShape(const std::string& text) {
  std::vector<int64_t> shape;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t x = std::min(text.find('x', pos), text.size());
    const std::string part = text.substr(pos, x - pos);
    if (part.empty() || part.size() > 12 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(part) < 1)
      throw Error("shape '" + text + "': expected dimensions >= 1 separated by 'x', e.g. 1x3x224x224");
    shape.push_back(std::stoll(part));
    pos = x + 1;
  }
  return shape;
}

Graph importOnnxBytes(const std::string& bytes, const std::string& name, const ImportOptions& options) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    throw Error(SourceLocation{name},
                "not an ONNX model: the protobuf does not parse (truncated file or another format)");
  return Importer(name, options).run(model);
}

Graph importOnnx(const std::string& path, const ImportOptions& options) {
  onnx::ModelProto model;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in || std::filesystem::is_directory(path)) throw Error(SourceLocation{path}, "cannot open file");
    in.seekg(0, std::ios::end);
    const auto size = static_cast<size_t>(in.tellg());
    in.seekg(0);
    if (size > static_cast<size_t>(std::numeric_limits<int>::max()))
      throw Error(SourceLocation{path},
                  "the model is larger than 2 GiB, protobuf's limit (external data is not supported)");
    // Parsed from the stream, not from a copy of the file: peak memory is the parsed model plus
    // the graph it becomes (each initializer's bytes are freed as they move into the graph).
    if (!model.ParseFromIstream(&in))
      throw Error(SourceLocation{path},
                  "not an ONNX model: the protobuf does not parse (truncated file or another format)");
  }
  return Importer(path, options).run(model);
}

}  // namespace systole::compiler
