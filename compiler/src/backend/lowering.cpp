// Algorithm:
//   1. Partition: the NPU part is everything between the QuantizeLinear nodes at the graph's
//      inputs and the DequantizeLinear nodes at its outputs; those two run on the host.
//   2. Layout: every int8 value is NHWC in DRAM (batch 1); shape-only operators (Reshape,
//      Flatten, ...) alias their input when the bytes are already in the right order. A value read
//      by padded windows gets a halo wide enough for its consumers, filled with its zero point
//      (or -128 when only max pooling reads it).
//   3. On-chip layout and chunk size from the config (capacities and operand field limits).
//   4. DRAM: constants from address 0 up; activations from the middle up, first-fit with reuse
//      once a value's last reader is lowered (haloed buffers keep their region: their halo is
//      initialised once, from the program's data).
//   5. Lower each operator in topological order, with a barrier between operators, and report
//      each one's instructions, work, predicted cycles and roofline bound.
#include <algorithm>
#include <cmath>
#include <set>

#include "context.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/encoding.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

const std::set<std::string> kAliasOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
const std::set<std::string> kNpuOps = {"Conv",    "Gemm",       "MatMul",      "Add",  "MaxPool", "AveragePool",
                                       "GlobalAveragePool", "Relu", "Clip", "Requant", "Concat"};

[[noreturn]] void unsupported(const Node& n, const std::string& why) {
  throw Error("node '" + n.name + "' (" + n.op + ") cannot run on the NPU: " + why);
}

ActBuffer shapeOf(const Value& v) {
  ActBuffer b;
  const auto& s = v.shape;
  if (s.size() == 4) {
    if (s[0] != 1) throw Error("value '" + v.name + "': only batch 1 is supported on the NPU");
    b.C = s[1], b.H = s[2], b.W = s[3];
  } else if (s.size() == 3 && s[0] == 1) {
    b.W = s[1], b.C = s[2];
  } else if (s.size() == 2) {
    b.W = s[0], b.C = s[1];
  } else if (s.size() == 1) {
    b.C = s[0];
  } else {
    throw Error("value '" + v.name + "': rank " + std::to_string(s.size()) + " tensors are not supported on the NPU");
  }
  return b;
}

/// Whether reshaping `a` into `b` leaves every byte where it is in the NHWC layout: the same
/// channels and the same number of pixels (a reshape only regroups pixels into rows).
bool keepsByteOrder(const ActBuffer& a, const ActBuffer& b) { return a.C == b.C && a.H * a.W == b.H * b.W; }

class DramAllocator {
 public:
  explicit DramAllocator(uint64_t base, uint64_t end) : base_(base), end_(end) { free_[base] = end - base; }
  uint64_t allocate(uint64_t bytes) {
    bytes = (bytes + 63) & ~uint64_t{63};
    for (auto it = free_.begin(); it != free_.end(); ++it)
      if (it->second >= bytes) {
        const uint64_t addr = it->first, left = it->second - bytes;
        free_.erase(it);
        if (left) free_[addr + bytes] = left;
        used_[addr] = bytes;
        peak_ = std::max(peak_, addr + bytes - base_);
        return addr;
      }
    throw Error("the activations do not fit in DRAM");
  }
  void release(uint64_t addr) {
    auto it = used_.find(addr);
    if (it == used_.end()) return;
    uint64_t start = addr, size = it->second;
    used_.erase(it);
    auto next = free_.lower_bound(start);
    if (next != free_.end() && next->first == start + size) {
      size += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == start) {
        prev->second += size;
        return;
      }
    }
    free_[start] = size;
  }
  uint64_t peak() const { return peak_; }

 private:
  uint64_t base_, end_, peak_ = 0;
  std::map<uint64_t, uint64_t> free_, used_;
};

/// The semantics classes each operator's lowering selects; a config without one of them runs the
/// operator on the host instead.
std::vector<Semantics> semanticsNeeded(const Node& n) {
  using S = Semantics;
  std::vector<S> need = {S::DmaLoad, S::DmaStore, S::Requantize, S::DmaLoadAcc};
  if (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") need.insert(need.end(), {S::WeightPreload, S::MatmulTile});
  else if (n.op == "MaxPool") need = {S::DmaLoad, S::DmaStore, S::VectorMax};
  else if (n.op == "Add" || n.op == "AveragePool" || n.op == "GlobalAveragePool") need.insert(need.end(), {S::VectorWiden, S::VectorAdd});
  else if (kAliasOps.count(n.op)) need.clear();
  else need.push_back(S::VectorWiden);  // Relu, Clip, Requant, Concat: widen + requantize
  return need;
}

/// Why `n` cannot run on the NPU described by `isa`, or "" if it can.
std::string npuIneligibility(const Graph& g, const Node& n, const isa::IsaConfig& isa) {
  if (!kNpuOps.count(n.op) && !kAliasOps.count(n.op)) return "no NPU lowering for this operator";
  for (Semantics s : semanticsNeeded(n))
    if (isa.bySemantics(s) < 0) return "ISA '" + isa.params().name + "' has no '" + std::string(isa::semanticsInfo(s).name) + "' instruction";
  std::vector<ActBuffer> ins, outs;
  try {
    for (int v : n.inputs) {
      if (v < 0) continue;
      const Value& val = g.values[static_cast<size_t>(v)];
      if (val.is_constant) continue;
      if (val.type != ElemType::Int8 || !val.quant) return "an input is not a quantized int8 tensor";
      ins.push_back(shapeOf(val));
    }
    for (int v : n.outputs) {
      const Value& val = g.values[static_cast<size_t>(v)];
      if (val.type != ElemType::Int8 || !val.quant) return "its output is not a quantized int8 tensor";
      outs.push_back(shapeOf(val));
    }
  } catch (const Error& e) {
    return e.message();
  }
  if (ins.empty()) return "it reads no activation";
  if (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") {
    const Value& w = g.values[static_cast<size_t>(n.inputs.at(1))];
    if (!w.is_constant || w.type != ElemType::Int8) return "its weights are not a constant int8 tensor";
    if (n.op != "Conv" && w.shape.size() != 2) return "its weights are not a matrix";
    if (n.op == "Conv" && w.shape.size() != 4) return "only 2-D convolutions run on the NPU";
  }
  if (n.op == "Add" && (ins.size() != 2 || g.values[static_cast<size_t>(n.inputs[0])].shape != g.values[static_cast<size_t>(n.inputs[1])].shape))
    return "broadcasting adds run on the host";
  if (kAliasOps.count(n.op)) {
    const ActBuffer& a = ins[0];
    const ActBuffer& b = outs[0];
    if (!keepsByteOrder(a, b)) return "this reshape reorders bytes in the NHWC layout";
  }
  if (n.op == "Concat") {
    const auto& shape = g.values[static_cast<size_t>(n.outputs[0])].shape;
    const int64_t axis = n.getInt("axis", 1);
    const int64_t channelAxis = shape.size() == 4 ? 1 : static_cast<int64_t>(shape.size()) - 1;
    if (axis != channelAxis && axis != channelAxis - static_cast<int64_t>(shape.size())) return "only channel concatenation runs on the NPU";
  }
  return "";
}

}  // namespace

std::vector<std::vector<int>> partition(const Graph& g, const isa::IsaConfig& isa, const LowerOptions& options) {
  std::vector<std::vector<int>> segments;
  bool open = false;
  for (int id : g.topoOrder()) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    if (npuIneligibility(g, n, isa).empty()) {
      if (!open) segments.emplace_back();
      segments.back().push_back(id);
      open = true;
    } else {
      open = false;
    }
  }
  // A run with too little work stays on the host: moving its tensors costs more than it saves.
  std::vector<std::vector<int>> kept;
  for (auto& seg : segments) {
    int64_t macs = 0;
    for (int id : seg) {
      const Node& n = g.nodes[static_cast<size_t>(id)];
      if (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") {
        const Value& w = g.values[static_cast<size_t>(n.inputs[1])];
        macs += w.elements() * g.values[static_cast<size_t>(n.outputs[0])].elements() /
                std::max<int64_t>(1, n.op == "Conv" ? w.shape[0] : w.shape.back());
      }
    }
    if (macs >= options.min_npu_macs) kept.push_back(std::move(seg));
  }
  return kept;
}

CompiledModel compileModel(const Graph& g, const isa::IsaConfig& isa, const LowerOptions& options) {
  CompiledModel model;
  const auto segments = partition(g, isa, options);
  std::vector<int> segmentOf(g.nodes.size(), -1);
  for (size_t s = 0; s < segments.size(); ++s)
    for (int id : segments[s]) segmentOf[static_cast<size_t>(id)] = static_cast<int>(s);
  int emitted = -1;
  for (int id : g.topoOrder()) {
    const int s = segmentOf[static_cast<size_t>(id)];
    if (s < 0) {
      model.schedule.push_back({id, std::nullopt});
    } else if (s != emitted) {
      model.schedule.push_back({-1, lowerSegment(g, isa, segments[static_cast<size_t>(s)], options)});
      emitted = s;
    }
  }
  return model;
}

CompiledProgram lowerToProgram(const Graph& g, const isa::IsaConfig& isa, const LowerOptions& options) {
  CompiledModel model = compileModel(g, isa, options);
  std::optional<CompiledProgram> only;
  for (auto& item : model.schedule) {
    if (item.npu) {
      if (only) throw Error("the model needs " + std::to_string(model.programCount()) +
                            " NPU programs with host operators between them; a single program cannot hold it");
      only = std::move(item.npu);
      continue;
    }
    const Node& n = g.nodes[static_cast<size_t>(item.host_node)];
    if (n.op != "QuantizeLinear" && n.op != "DequantizeLinear")
      throw Error("node '" + n.name + "' (" + n.op + ") runs on the host between NPU operators: " + npuIneligibility(g, n, isa));
  }
  if (!only) throw Error("the graph has no quantized operator the NPU can run (run quantization first)");
  return std::move(*only);
}

size_t CompiledModel::programCount() const {
  size_t n = 0;
  for (const auto& item : schedule) n += item.npu.has_value();
  return n;
}

namespace {

/// Thrown when the constants outgrow the DRAM below the activations; carries how much they need.
struct ConstantsOverflow {
  uint64_t bytes;
};

CompiledProgram lowerSegmentAt(const Graph& g, const isa::IsaConfig& isa, const std::vector<int>& order, const LowerOptions& options,
                               uint64_t activationBase) {
  Lowering L(g, isa);
  const isa::Params& p = isa.params();
  const auto users = g.users();

  // 1. The segment's boundary: values it reads but does not compute, and values it computes that
  // something outside reads (or the graph returns).
  std::vector<bool> inside(g.nodes.size(), false);
  for (int id : order) inside[static_cast<size_t>(id)] = true;
  std::vector<int> npuInputs, npuOutputs;
  for (int id : order)
    for (int v : g.nodes[static_cast<size_t>(id)].inputs) {
      if (v < 0 || g.values[static_cast<size_t>(v)].is_constant) continue;
      const int producer = g.values[static_cast<size_t>(v)].producer;
      if ((producer < 0 || !inside[static_cast<size_t>(producer)]) && std::find(npuInputs.begin(), npuInputs.end(), v) == npuInputs.end())
        npuInputs.push_back(v);
    }
  for (int id : order)
    for (int v : g.nodes[static_cast<size_t>(id)].outputs) {
      bool escapes = std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
      for (int u : users[static_cast<size_t>(v)]) escapes |= !inside[static_cast<size_t>(u)];
      if (escapes) npuOutputs.push_back(v);
    }

  // 2. Layout: shapes, aliases, halos.
  std::map<int, int> aliasOf;  // value -> the value whose buffer it shares
  auto root = [&](int v) {
    while (aliasOf.count(v)) v = aliasOf[v];
    return v;
  };
  std::map<int, ActBuffer> shapes;
  for (int v : npuInputs) shapes[v] = shapeOf(g.values[static_cast<size_t>(v)]);
  for (int id : order) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    const int out = n.outputs[0];
    shapes[out] = shapeOf(g.values[static_cast<size_t>(out)]);
    if (kAliasOps.count(n.op)) {
      const ActBuffer& a = shapes.at(n.inputs[0]);
      const ActBuffer& b = shapes.at(out);
      if (!keepsByteOrder(a, b)) unsupported(n, "this reshape reorders bytes in the NHWC layout");
      aliasOf[out] = n.inputs[0];
    }
  }
  std::map<int, int64_t> halo;
  std::map<int, bool> haloForMaxOnly;
  for (int id : order) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    if (n.op != "Conv" && n.op != "MaxPool" && n.op != "AveragePool") continue;
    const auto pads = n.getInts("pads", {0, 0, 0, 0});
    int64_t need = *std::max_element(pads.begin(), pads.end());
    if (n.op == "MaxPool" && n.getInt("ceil_mode", 0) != 0) {
      // ceil_mode windows overhang the bottom and right edges: more padding that never wins.
      const ActBuffer& in = shapes.at(n.inputs[0]);
      const ActBuffer& out = shapes.at(n.outputs[0]);
      const auto k = n.getInts("kernel_shape"), st = n.getInts("strides", {1, 1});
      need = std::max({need, (out.H - 1) * st[0] + k[0] - in.H - pads[0], (out.W - 1) * st[1] + k[1] - in.W - pads[1]});
    }
    if (need == 0) continue;
    const int v = root(n.inputs[0]);
    halo[v] = std::max(halo[v], need);
    if (!haloForMaxOnly.count(v)) haloForMaxOnly[v] = true;
    if (n.op != "MaxPool") haloForMaxOnly[v] = false;
  }
  for (auto& [v, h] : halo) {
    ActBuffer& b = shapes.at(v);
    b.halo = h;
    const Value& val = g.values[static_cast<size_t>(v)];
    const int32_t z = val.quant->zero_point.at(0);
    b.fill = haloForMaxOnly[v] ? int8_t{-128} : static_cast<int8_t>(z);
    if (!haloForMaxOnly[v] && z != -128) {
      // Max pooling over a zero-point halo is exact only if no value is below the zero point.
      for (int u : users[static_cast<size_t>(v)]) {
        const Node& c = g.nodes[static_cast<size_t>(u)];
        const Node* prod = val.producer >= 0 ? &g.nodes[static_cast<size_t>(val.producer)] : nullptr;
        if (c.op == "MaxPool" && (!prod || prod->getInt("act_min", -128) < z))
          unsupported(c, "its padded input is also read by a convolution and is not ReLU-bounded");
      }
    }
  }

  // 3. On-chip layout.
  const int64_t scaleRows = 4;  // two (multiplier, shift) pairs, alternating by output-channel tile
  L.scaleBase = p.acc_rows - scaleRows;
  L.accHalf = L.scaleBase / 2;
  int64_t chunk = std::min(L.accHalf, (p.spad_rows - 2 * p.array_rows) / 4);
  for (auto [s, k] : {std::pair{Semantics::MatmulTile, 2}, {Semantics::DmaLoad, 2}, {Semantics::DmaStore, 2},
                      {Semantics::DmaLoadAcc, 2}, {Semantics::Requantize, 2}, {Semantics::VectorWiden, 2},
                      {Semantics::VectorAdd, 3}, {Semantics::VectorMax, 3}})
    if (isa.bySemantics(s) >= 0) chunk = std::min(chunk, L.limit(s, k));  // operators without it run on the host
  if (chunk < 1 || L.accHalf < 2) throw Error("ISA '" + p.name + "' has too little on-chip memory for this model");
  L.chunk = chunk;
  L.slotRows = (p.spad_rows - 2 * chunk) / 2;
  for (int64_t limitRow : {L.limit(Semantics::DmaLoad, 1), L.limit(Semantics::WeightPreload, 0)})
    if (limitRow < p.spad_rows - 1) {
      // Operand fields cannot address the whole scratchpad: keep the layout within their reach.
      L.slotRows = std::min(L.slotRows, (limitRow + 1 - 2 * chunk) / 2);
    }
  if (L.slotRows < p.array_rows + chunk) throw Error("ISA '" + p.name + "': the scratchpad is too small for one weight tile and chunk");

  // 4. DRAM: program inputs first (so the host can write them), then activations as they appear.
  DramAllocator acts(activationBase, static_cast<uint64_t>(p.dram_size));
  CompiledProgram result;
  auto allocate = [&](int v) {
    ActBuffer& b = shapes.at(v);
    b.addr = acts.allocate(static_cast<uint64_t>(b.bytes()));
    if (b.halo > 0) L.builder.addData(b.addr, std::vector<uint8_t>(static_cast<size_t>(b.bytes()), static_cast<uint8_t>(b.fill)));
    L.buffers[v] = b;
  };
  auto tensorFor = [&](int v, isa::TensorKind kind) {
    const Value& val = g.values[static_cast<size_t>(v)];
    const ActBuffer& b = L.buffers.at(v);
    std::vector<int64_t> shape = val.shape.size() == 4 ? std::vector<int64_t>{1, b.paddedH(), b.paddedW(), b.C} : val.shape;
    L.builder.addTensor({val.name, kind, isa::DType::Int8, shape, b.addr, val.quant->scale.at(0), val.quant->zero_point.at(0)});
    return BoundaryTensor{val.name, val.shape, val.shape.size() == 4, b.halo};
  };
  // Haloed buffers first: their halo is initialised once, from the program's data, so their
  // regions must never have belonged to another tensor.
  for (const auto& [v, h] : halo) allocate(v);
  std::vector<std::pair<int, int>> inputCopies;  // (program input, padded copy)
  for (int v : npuInputs) {
    ActBuffer plain = shapes.at(v);
    const int64_t h = plain.halo;
    plain.halo = 0;
    plain.addr = acts.allocate(static_cast<uint64_t>(plain.bytes()));
    if (h > 0) {
      // The host writes the input unpadded; the program copies it into a haloed buffer first.
      const int copy = -2 - v;  // a private id for the unpadded program input
      L.buffers[copy] = plain;
      inputCopies.emplace_back(copy, v);
      const Value& val = g.values[static_cast<size_t>(v)];
      L.builder.addTensor({val.name, isa::TensorKind::Input, isa::DType::Int8,
                           val.shape.size() == 4 ? std::vector<int64_t>{1, plain.H, plain.W, plain.C} : val.shape, plain.addr,
                           val.quant->scale.at(0), val.quant->zero_point.at(0)});
      result.inputs.push_back({val.name, val.shape, val.shape.size() == 4});
    } else {
      L.buffers[v] = plain;
      result.inputs.push_back(tensorFor(v, isa::TensorKind::Input));
    }
  }
  // Last reader of each buffer (in lowering order); program outputs live to the end.
  std::map<int, size_t> lastUse;
  for (size_t i = 0; i < order.size(); ++i)
    for (int v : g.nodes[static_cast<size_t>(order[i])].inputs)
      if (v >= 0 && !g.values[static_cast<size_t>(v)].is_constant) lastUse[root(v)] = i;
  for (int v : npuOutputs) lastUse[root(v)] = SIZE_MAX;
  for (int v : npuInputs) lastUse[root(v)] = SIZE_MAX;  // the host's input region stays intact
  if (options.keep_intermediates)
    for (auto& [v, last] : lastUse) last = SIZE_MAX;

  // 5. Lower.
  auto begin = [&](const std::string& name, const std::string& op) {
    LayerReport r;
    r.name = name;
    r.op = op;
    r.first_instruction = static_cast<uint32_t>(L.emit.size());
    L.layers.push_back(r);
  };
  auto end = [&] {
    L.emit.barrier();
    LayerReport& r = L.layers.back();
    r.end_instruction = static_cast<uint32_t>(L.emit.size());
    int64_t perQueue[isa::kNumUnits] = {0, 0, 0};
    const auto& code = L.builder.instructions();
    for (uint32_t i = r.first_instruction; i < r.end_instruction; ++i)
      perQueue[static_cast<int>(isa.instr(code[i].desc).unit)] += isa::timingCycles(isa, code[i]);
    r.predicted_cycles = *std::max_element(perQueue, perQueue + isa::kNumUnits) + p.dram_latency;
    const double compute = static_cast<double>(r.macs) / static_cast<double>(p.array_rows * p.array_cols);
    const double memory = static_cast<double>(r.min_dram_bytes) / static_cast<double>(p.dram_bytes_per_cycle);
    r.roofline_cycles = static_cast<int64_t>(std::ceil(std::max(compute, memory)));
  };
  for (auto [from, to] : inputCopies) {
    const Value& val = g.values[static_cast<size_t>(to)];
    begin(val.name + ".pad", "Pad");
    const ActBuffer& dst = L.buffers.at(to);
    const int32_t z = val.quant->zero_point.at(0);
    emitRescale(L, L.buffers.at(from), 0, dst, 0, dst.C, z, 1 << 30, 30, z, -128, 127);
    L.layers.back().min_dram_bytes = 2 * dst.H * dst.W * dst.C;
    end();
  }
  for (size_t i = 0; i < order.size(); ++i) {
    const Node& n = g.nodes[static_cast<size_t>(order[i])];
    const int out = n.outputs[0];
    if (kAliasOps.count(n.op)) {
      ActBuffer b = L.buffers.at(root(out));
      const ActBuffer& s = shapes.at(out);
      b.H = s.H, b.W = s.W, b.C = s.C;
      L.buffers[out] = b;
    } else {
      if (!L.buffers.count(out)) allocate(out);
      begin(n.name, n.op);
      if (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") lowerMatmulLike(L, n);
      else if (n.op == "Add") lowerAdd(L, n);
      else if (n.op == "MaxPool") lowerMaxPool(L, n);
      else if (n.op == "AveragePool" || n.op == "GlobalAveragePool") lowerAveragePool(L, n);
      else if (n.op == "Concat") lowerConcat(L, n);
      else lowerRequant(L, n);
      end();
    }
    for (int v : n.inputs)
      if (v >= 0 && !g.values[static_cast<size_t>(v)].is_constant && lastUse[root(v)] == i && L.buffers.at(root(v)).halo == 0)
        acts.release(L.buffers.at(root(v)).addr);
  }
  L.emit.finish();
  for (int v : npuOutputs) result.outputs.push_back(tensorFor(v, isa::TensorKind::Output));
  if (options.keep_intermediates)
    for (int id : order) {
      const int v = g.nodes[static_cast<size_t>(id)].outputs[0];
      if (std::find(npuOutputs.begin(), npuOutputs.end(), v) != npuOutputs.end()) continue;
      result.intermediates.push_back(tensorFor(v, isa::TensorKind::Intermediate));
    }

  if (L.constantTop > activationBase) throw ConstantsOverflow{L.constantTop};
  result.program = L.builder.build();
  result.layers = std::move(L.layers);
  result.dram_constant_bytes = static_cast<int64_t>(L.constantTop);
  result.dram_activation_bytes = static_cast<int64_t>(acts.peak());
  result.spad_rows_used = 2 * L.slotRows + 2 * L.chunk;
  result.acc_rows_used = p.acc_rows;
  result.chunk_rows = L.chunk;
  result.tiles = "chunk " + std::to_string(L.chunk) + " rows, load slots " + std::to_string(L.slotRows) + " rows, accumulator halves " +
                 std::to_string(L.accHalf) + " rows, scale rows " + std::to_string(scaleRows) + "\n" + L.tiles;
  return result;
}

}  // namespace

CompiledProgram lowerSegment(const Graph& g, const isa::IsaConfig& isa, const std::vector<int>& order, const LowerOptions& options) {
  // Activations start in the middle of the DRAM unless the constants need more: then right above
  // them (the constants do not depend on where the activations go, so a second pass fits).
  const auto dram = static_cast<uint64_t>(isa.params().dram_size);
  try {
    return lowerSegmentAt(g, isa, order, options, dram / 2);
  } catch (const ConstantsOverflow& overflow) {
    if (overflow.bytes >= dram) throw Error("the model's constants (" + std::to_string(overflow.bytes) + " bytes) do not fit in the DRAM");
    try {
      return lowerSegmentAt(g, isa, order, options, (overflow.bytes + 4095) & ~uint64_t{4095});
    } catch (const ConstantsOverflow&) {
      throw Error("the model's constants do not fit in the DRAM");
    }
  }
}

}  // namespace systole::compiler
