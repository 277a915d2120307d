// Algorithm: the programs go into the container as complete version-1 images; the model
// description is a flat little-endian record (isa/byte_stream.h): the graph's values and nodes
// with their attributes, its inputs and outputs, then the schedule, each NPU step naming its
// program by index with the program's boundary tensors and layer reports. Reading rebuilds the
// graph through Graph::addValue/addNode, checks every id against what exists, and verifies it.
#include "systole/compiler/artifact.h"

#include "systole/isa/byte_stream.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

namespace systole::compiler {

namespace {

using isa::ByteReader;
using isa::ByteWriter;

void writeShape(ByteWriter& w, const std::vector<int64_t>& shape) {
  w.u16(static_cast<uint16_t>(shape.size()));
  for (int64_t d : shape) w.i64(d);
}

std::vector<int64_t> readShape(ByteReader& r) {
  const uint16_t rank = r.u16();
  if (rank > 8) r.fail("rank " + std::to_string(rank) + " above 8");
  std::vector<int64_t> shape;
  for (uint16_t d = 0; d < rank; ++d) {
    shape.push_back(r.i64());
    if (shape.back() < 0 || shape.back() > (int64_t{1} << 32)) r.fail("bad dimension " + std::to_string(shape.back()));
  }
  return shape;
}

void writeIds(ByteWriter& w, const std::vector<int>& ids) {
  w.u32(static_cast<uint32_t>(ids.size()));
  for (int id : ids) w.i32(id);
}

std::vector<int> readIds(ByteReader& r, size_t values, bool optional) {
  std::vector<int> ids;
  for (uint64_t n = r.count(1 << 16), i = 0; i < n; ++i) {
    ids.push_back(r.i32());
    if (ids.back() < (optional ? -1 : 0) || ids.back() >= static_cast<int>(values))
      r.fail("value id " + std::to_string(ids.back()) + " out of range");
  }
  return ids;
}

void writeValue(ByteWriter& w, const Value& v) {
  w.str(v.name);
  w.u8(static_cast<uint8_t>(v.type));
  writeShape(w, v.shape);
  w.u8(v.quant.has_value());
  if (v.quant) {
    w.u32(static_cast<uint32_t>(v.quant->scale.size()));
    for (float s : v.quant->scale) w.f32(s);
    w.u32(static_cast<uint32_t>(v.quant->zero_point.size()));
    for (int32_t z : v.quant->zero_point) w.i32(z);
    w.i32(v.quant->axis);
  }
  w.u8(v.is_constant);
  w.bytes(v.data);
}

Value readValue(ByteReader& r) {
  Value v;
  v.name = r.str();
  const uint8_t type = r.u8();
  if (type > static_cast<uint8_t>(ElemType::Int16)) r.fail("bad element type " + std::to_string(type));
  v.type = static_cast<ElemType>(type);
  v.shape = readShape(r);
  if (r.u8()) {
    Quant q;
    for (uint64_t n = r.count(1 << 20), i = 0; i < n; ++i) q.scale.push_back(r.f32());
    for (uint64_t n = r.count(1 << 20), i = 0; i < n; ++i) q.zero_point.push_back(r.i32());
    q.axis = r.i32();
    if (q.scale.empty() || q.scale.size() != q.zero_point.size()) r.fail("bad quantization of '" + v.name + "'");
    v.quant = std::move(q);
  }
  v.is_constant = r.u8() != 0;
  v.data = r.bytes();
  if (v.is_constant && v.data.size() != static_cast<size_t>(v.elements() * elemTypeBytes(v.type)))
    r.fail("constant '" + v.name + "' has the wrong size");
  return v;
}

void writeAttr(ByteWriter& w, const AttrValue& a) {
  w.u8(static_cast<uint8_t>(a.index()));
  if (auto* i = std::get_if<int64_t>(&a))
    w.i64(*i);
  else if (auto* d = std::get_if<double>(&a))
    w.f64(*d);
  else if (auto* s = std::get_if<std::string>(&a))
    w.str(*s);
  else if (auto* is = std::get_if<std::vector<int64_t>>(&a)) {
    w.u32(static_cast<uint32_t>(is->size()));
    for (int64_t x : *is) w.i64(x);
  } else {
    const auto& ds = std::get<std::vector<double>>(a);
    w.u32(static_cast<uint32_t>(ds.size()));
    for (double x : ds) w.f64(x);
  }
}

AttrValue readAttr(ByteReader& r) {
  switch (r.u8()) {
    case 0: return r.i64();
    case 1: return r.f64();
    case 2: return r.str();
    case 3: {
      std::vector<int64_t> v;
      for (uint64_t n = r.count(1 << 24), i = 0; i < n; ++i) v.push_back(r.i64());
      return v;
    }
    case 4: {
      std::vector<double> v;
      for (uint64_t n = r.count(1 << 24), i = 0; i < n; ++i) v.push_back(r.f64());
      return v;
    }
    default: r.fail("bad attribute type");
  }
}

void writeGraph(ByteWriter& w, const Graph& g) {
  w.i64(g.opset);
  w.u32(static_cast<uint32_t>(g.values.size()));
  for (const Value& v : g.values) writeValue(w, v);
  w.u32(static_cast<uint32_t>(g.nodes.size()));
  for (const Node& n : g.nodes) {
    w.str(n.name);
    w.str(n.op);
    writeIds(w, n.inputs);
    writeIds(w, n.outputs);
    w.u32(static_cast<uint32_t>(n.attrs.size()));
    for (const auto& [key, value] : n.attrs) w.str(key), writeAttr(w, value);
  }
  writeIds(w, g.inputs);
  writeIds(w, g.outputs);
}

Graph readGraph(ByteReader& r) {
  Graph g;
  r.section("graph values");
  g.opset = r.i64();
  for (uint64_t n = r.count(1 << 24), i = 0; i < n; ++i) g.addValue(readValue(r));
  r.section("graph nodes");
  for (uint64_t n = r.count(1 << 24), i = 0; i < n; ++i) {
    Node node;
    node.name = r.str();
    node.op = r.str();
    node.inputs = readIds(r, g.values.size(), true);
    node.outputs = readIds(r, g.values.size(), false);
    for (uint64_t a = r.count(1 << 16), k = 0; k < a; ++k) {
      std::string key = r.str();
      node.attrs[key] = readAttr(r);
    }
    g.addNode(std::move(node));
  }
  g.inputs = readIds(r, g.values.size(), false);
  g.outputs = readIds(r, g.values.size(), false);
  try {
    g.verify();
  } catch (const Error& e) {
    r.fail("inconsistent graph: " + e.message());
  }
  return g;
}

void writeBoundary(ByteWriter& w, const std::vector<BoundaryTensor>& tensors) {
  w.u32(static_cast<uint32_t>(tensors.size()));
  for (const auto& t : tensors) w.str(t.value), writeShape(w, t.graph_shape), w.u8(t.nhwc), w.i64(t.halo);
}

std::vector<BoundaryTensor> readBoundary(ByteReader& r, const Graph& g) {
  std::vector<BoundaryTensor> out;
  for (uint64_t n = r.count(1 << 20), i = 0; i < n; ++i) {
    BoundaryTensor t;
    t.value = r.str();
    t.graph_shape = readShape(r);
    t.nhwc = r.u8() != 0;
    t.halo = r.i64();
    const int v = g.findValue(t.value);
    if (v < 0 || g.values[static_cast<size_t>(v)].shape != t.graph_shape || (t.nhwc && t.graph_shape.size() != 4) ||
        t.halo < 0 || t.halo > 1 << 16)
      r.fail("program tensor '" + t.value + "' does not match the graph");
    out.push_back(std::move(t));
  }
  return out;
}

void writeProgramInfo(ByteWriter& w, const CompiledProgram& p) {
  w.u32(static_cast<uint32_t>(p.layers.size()));
  for (const LayerReport& l : p.layers) {
    w.str(l.name), w.str(l.op), w.str(l.output);
    w.u32(l.first_instruction), w.u32(l.end_instruction);
    w.i64(l.macs), w.i64(l.min_dram_bytes), w.i64(l.predicted_cycles), w.i64(l.roofline_cycles);
  }
  writeBoundary(w, p.inputs);
  writeBoundary(w, p.outputs);
  writeBoundary(w, p.intermediates);
  for (int64_t v : {p.dram_constant_bytes, p.dram_activation_bytes, p.spad_rows_used, p.acc_rows_used, p.chunk_rows})
    w.i64(v);
}

void readProgramInfo(ByteReader& r, const Graph& g, CompiledProgram& p) {
  const uint64_t instructions = p.program.instructionCount();
  for (uint64_t n = r.count(1 << 20), i = 0; i < n; ++i) {
    LayerReport l;
    l.name = r.str(), l.op = r.str(), l.output = r.str();
    l.first_instruction = r.u32(), l.end_instruction = r.u32();
    if (l.first_instruction > l.end_instruction || l.end_instruction > instructions)
      r.fail("layer '" + l.name + "' has a bad instruction range");
    l.macs = r.i64(), l.min_dram_bytes = r.i64(), l.predicted_cycles = r.i64(), l.roofline_cycles = r.i64();
    p.layers.push_back(std::move(l));
  }
  p.inputs = readBoundary(r, g);
  p.outputs = readBoundary(r, g);
  p.intermediates = readBoundary(r, g);
  for (int64_t* v :
       {&p.dram_constant_bytes, &p.dram_activation_bytes, &p.spad_rows_used, &p.acc_rows_used, &p.chunk_rows})
    *v = r.i64();
}

}  // namespace

namespace {

/// The compiler's description of the model (the container's opaque part) and the programs it
/// names, which stay where they are.
std::vector<uint8_t> describeModel(const isa::IsaConfig& isa, const Graph& quantized, const CompiledModel& model,
                                   std::vector<const isa::Program*>& programs) {
  ByteWriter w;
  size_t constantBytes = 0;
  for (const Value& v : quantized.values) constantBytes += v.data.size();
  w.reserve(constantBytes + (size_t{1} << 20));  // the graph's constants and some room for the rest
  w.str(isa.params().name);
  w.u64(isa.hash());
  writeGraph(w, quantized);
  w.u32(static_cast<uint32_t>(model.schedule.size()));
  for (const ScheduleItem& item : model.schedule) {
    w.u8(item.npu.has_value());
    if (!item.npu) {
      w.i32(item.host_node);
      w.str(item.host_reason);
      continue;
    }
    w.u32(static_cast<uint32_t>(programs.size()));
    programs.push_back(&item.npu->program);
    writeProgramInfo(w, *item.npu);
  }
  return std::move(w.out());
}

}  // namespace

std::vector<uint8_t> serializeArtifact(const isa::IsaConfig& isa, const Graph& quantized, const CompiledModel& model) {
  std::vector<const isa::Program*> programs;
  const std::vector<uint8_t> description = describeModel(isa, quantized, model, programs);
  return isa::serializeModelSbin(programs, description);
}

Artifact deserializeArtifact(const std::vector<uint8_t>& bytes, const std::string& name) {
  isa::ModelContainer c = isa::deserializeModelSbin(bytes, name);
  ByteReader r(c.model, c.model.size(), name);
  Artifact a;
  r.section("ISA identity");
  a.isa_name = r.str();
  a.isa_hash = r.u64();
  for (const auto& p : c.programs)
    if (p.isa_name != a.isa_name || p.isa_hash != a.isa_hash)
      throw Error(SourceLocation{name}, "a program was built for another config than the model");
  a.graph = readGraph(r);
  r.section("schedule");
  constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> stepOf(c.programs.size(), kNone);  // the schedule step that holds each program
  for (uint64_t n = r.count(1 << 24), i = 0; i < n; ++i) {
    ScheduleItem item;
    if (r.u8() == 0) {
      item.host_node = r.i32();
      if (item.host_node < 0 || item.host_node >= static_cast<int>(a.graph.nodes.size()))
        r.fail("host step names no node");
      item.host_reason = r.str();
    } else {
      const uint32_t k = r.u32();
      if (k >= c.programs.size())
        r.fail("NPU step names program " + std::to_string(k) + " of " + std::to_string(c.programs.size()));
      CompiledProgram p;
      // Each program is one NPU step's: moved, not copied (a second step naming it copies the first's).
      if (const size_t first = stepOf.at(k); first != kNone)
        p.program = a.model.schedule.at(first).npu->program;
      else
        p.program = std::move(c.programs[k]), stepOf[k] = a.model.schedule.size();
      readProgramInfo(r, a.graph, p);
      item.npu = std::move(p);
    }
    a.model.schedule.push_back(std::move(item));
  }
  if (r.pos() != c.model.size()) r.fail("unexpected bytes after the schedule");
  return a;
}

void checkArtifactMatches(const Artifact& artifact, const isa::IsaConfig& isa, const std::string& name) {
  if (artifact.isa_name != isa.params().name || artifact.isa_hash != isa.hash())
    throw Error(SourceLocation{name}, "compiled for ISA '" + artifact.isa_name + "', not for the config '" +
                                          isa.params().name +
                                          "' given (or that config changed since): recompile the model");
  for (const auto& item : artifact.model.schedule)
    if (item.npu) isa::checkProgramMatches(item.npu->program, isa, name);
}

void writeArtifact(const std::string& path, const isa::IsaConfig& isa, const Graph& quantized,
                   const CompiledModel& model) {
  std::vector<const isa::Program*> programs;
  const std::vector<uint8_t> description = describeModel(isa, quantized, model, programs);
  isa::writeModelSbin(path, programs, description);
}

Artifact readArtifact(const std::string& path) { return deserializeArtifact(readBinaryFile(path), path); }

}  // namespace systole::compiler
