// Algorithm (the tiling pass: a segment of the quantized graph -> a tile plan with symbolic
// places):
//   1. Boundary: the values the segment reads but does not compute (program inputs) and the
//      values it computes that something outside reads (program outputs).
//   2. Buffers: every quantized value (int8 or int16 lanes) is NHWC in DRAM (batch 1); shape-only operators alias their
//      input's buffer (the registry checks the bytes are already in order). A value read by padded
//      windows gets a halo as wide as its readers need (registry `halo`), filled with its zero
//      point, or -128 when only max windows read it. A program input with a halo is written
//      unpadded by the host and copied into its haloed buffer by a first "Pad" layer.
//   3. On-chip layout: the largest chunk every capacity and operand field allows; two load slots,
//      two output slots, two accumulator halves and four scale rows.
//   4. Layers: each node in topological order, tiled by its registry entry into steps, followed by
//      a barrier; liveness (the last layer that reads each buffer) for memory planning.
#include <algorithm>
#include <set>
#include <string>

#include "systole/compiler/float_ops.h"
#include "operator_registry.h"
#include "backend_passes.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/arith.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

const Value& valueOf(const Graph& g, int v) { return g.values[static_cast<size_t>(v)]; }

struct Boundary {
  std::vector<int> inputs, outputs;
};

Boundary segmentBoundary(const Graph& g, const std::vector<int>& order) {
  const auto users = g.users();
  std::vector<bool> inside(g.nodes.size(), false);
  for (int id : order) inside[static_cast<size_t>(id)] = true;
  Boundary b;
  for (int id : order)
    for (int v : g.nodes[static_cast<size_t>(id)].inputs) {
      if (v < 0 || valueOf(g, v).is_constant) continue;
      const int producer = valueOf(g, v).producer;
      if ((producer < 0 || !inside[static_cast<size_t>(producer)]) &&
          std::find(b.inputs.begin(), b.inputs.end(), v) == b.inputs.end())
        b.inputs.push_back(v);
    }
  for (int id : order)
    for (int v : g.nodes[static_cast<size_t>(id)].outputs) {
      bool escapes = std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
      for (int u : users[static_cast<size_t>(v)]) escapes |= !inside[static_cast<size_t>(u)];
      if (escapes) b.outputs.push_back(v);
    }
  return b;
}

/// Buffers of every value (aliases share their source's id).
void placeValues(const Graph& g, const std::vector<int>& order, const Boundary& boundary, TilePlan& plan) {
  for (int v : boundary.inputs) plan.buffers[v] = bufferShape(valueOf(g, v)), plan.buffers[v].id = v;
  for (int id : order) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    const int out = n.outputs[0];
    ActBuffer b = bufferShape(valueOf(g, out));
    b.id = npuOperator(n.op.kind())->alias ? plan.buffers.at(n.inputs[0]).id : out;
    plan.buffers[out] = b;
  }
}

/// Concat elision: a Concat whose every input is computed in this segment by a tiled (not
/// aliasing) operator, read by nothing else and not a program tensor, with the Concat's Quant, is
/// not copied: each input becomes a view of the Concat's buffer (its channel range, at the
/// buffer's pixel pitch), so its producer stores straight into place. Concats are visited last
/// first, so a Concat feeding an elided one is elided into the same buffer. Returns the elided
/// Concats (layers without steps).
std::set<int> elideConcats(const Graph& g, const std::vector<int>& order, const Boundary& boundary, TilePlan& plan) {
  const auto users = g.users();
  std::set<int> inside(order.begin(), order.end()), elided;
  const auto member = [&](int v, int concat) {
    const int p = valueOf(g, v).producer;
    if (p < 0 || !inside.count(p) ||
        std::find(boundary.outputs.begin(), boundary.outputs.end(), v) != boundary.outputs.end())
      return false;
    const Node& producer = g.nodes[static_cast<size_t>(p)];
    const NpuOperator& op = *npuOperator(producer.op.kind());
    if (op.alias || op.images_as_rows || plan.buffers.at(v).id != v) return false;
    if (valueOf(g, v).quant != valueOf(g, g.nodes[static_cast<size_t>(concat)].outputs[0]).quant) return false;
    const auto& u = users[static_cast<size_t>(v)];
    return !u.empty() && std::all_of(u.begin(), u.end(), [&](int r) { return r == concat; });
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& n = g.nodes[static_cast<size_t>(*it)];
    if (n.op != Op::Concat) continue;
    const auto& shape = valueOf(g, n.outputs[0]).shape;  // a concatenation of rows is copied
    if (isRowAxis(shape, static_cast<int64_t>(ops::normAxis(n.getInt("axis", 1), shape.size())))) continue;
    std::set<int> distinct(n.inputs.begin(), n.inputs.end());
    if (distinct.size() != n.inputs.size()) continue;
    if (!std::all_of(n.inputs.begin(), n.inputs.end(), [&](int v) { return member(v, *it); })) continue;
    const ActBuffer whole = plan.buffers.at(n.outputs[0]);
    int64_t offset = 0;
    for (int v : n.inputs) {
      ActBuffer& b = plan.buffers.at(v);
      const int64_t C = b.C;
      b = whole;
      b.C = C;
      b.pitch = whole.pixelLanes();
      b.channel0 = whole.channel0 + offset;
      offset += C;
    }
    elided.insert(*it);
  }
  return elided;
}

/// The halo each root buffer needs: (pixels, only max windows read it).
std::map<int, std::pair<int64_t, bool>> haloNeeds(const Graph& g, const std::vector<int>& order, const TilePlan& plan) {
  std::map<int, std::pair<int64_t, bool>> halo;  // root -> (pixels, only max windows read it)
  for (int id : order) {
    const Node& n = g.nodes[static_cast<size_t>(id)];
    const NpuOperator& op = *npuOperator(n.op.kind());
    if (!op.halo) continue;
    const int64_t need = op.halo(n, plan.buffers.at(n.inputs[0]), plan.buffers.at(n.outputs[0]));
    if (need == 0) continue;
    auto [it, fresh] = halo.try_emplace(plan.buffers.at(n.inputs[0]).id, need, op.halo_for_max);
    it->second.first = std::max(it->second.first, need);
    if (!fresh) it->second.second = it->second.second && op.halo_for_max;
  }
  return halo;
}

/// Max pooling over a zero-point halo is exact only if no value is below the zero point.
void checkMaxOverZeroPointHalo(const Graph& g, int v, int32_t z, int32_t actMin) {
  const Value& val = valueOf(g, v);
  const Node* producer = val.producer >= 0 ? &g.nodes[static_cast<size_t>(val.producer)] : nullptr;
  const auto users = g.users();
  for (int u : users[static_cast<size_t>(v)]) {
    const Node& c = g.nodes[static_cast<size_t>(u)];
    if (c.op == Op::MaxPool && (!producer || producer->getInt("act_min", actMin) < z))
      throw Error("node '" + c.name + "' (" + c.op +
                  ") cannot run on the NPU: its padded input is also read by a convolution and is not ReLU-bounded");
  }
}

void applyHalos(const TileContext& T, const std::map<int, std::pair<int64_t, bool>>& halo, TilePlan& plan) {
  for (const auto& [root, need] : halo) {
    const int32_t z = valueOf(T.g, root).quant->zero_point.at(0);
    if (!need.second && z != T.actMin) checkMaxOverZeroPointHalo(T.g, root, z, T.actMin);
    plan.halo_buffers.push_back(root);
    for (auto& [v, b] : plan.buffers)
      if (b.id == root) b.halo = need.first, b.fill = need.second ? T.actMin : z;
  }
}

/// The rows of a memory that every field addressing its rows reaches: a row field narrower than
/// the memory leaves the rows above its reach unused (by every instruction the back end emits, so
/// that any of them may address any row the layout uses).
int64_t reachableRows(const TileContext& T, isa::RowSpace space, int64_t rows) {
  for (const isa::SemanticsInfo& info : isa::allSemantics())
    if (T.isa.bySemantics(info.semantics) >= 0 && backendEmits(info.semantics))
      for (int k = 0; k < info.operandCount(); ++k)
        if (isa::operandRowSpace(info.semantics, k) == space) rows = std::min(rows, T.limit(info.semantics, k) + 1);
  return rows;
}

/// " (its row fields reach N of the M scratchpad rows)" where narrow fields shrank a memory.
std::string narrowFieldsNote(int64_t spadRows, int64_t accRows, const isa::Params& p) {
  std::string note;
  if (spadRows < p.spad_rows)
    note += std::to_string(spadRows) + " of the " + std::to_string(p.spad_rows) + " scratchpad rows";
  if (accRows < p.acc_rows)
    note += (note.empty() ? "" : " and ") + std::to_string(accRows) + " of the " + std::to_string(p.acc_rows) +
            " accumulator rows";
  return note.empty() ? "" : " (its row fields reach " + note + ")";
}

/// The DMA classes move whole rows (a bias row, an accumulator tile, a chunk's channels): a `bytes`
/// field that cannot hold one row is a config this back end cannot use, named with what to change.
/// (dma_load_2d is exempt: where its fields fall short, the loads take dma_load instead.)
void checkRowBytesFit(const TileContext& T) {
  const isa::Params& p = T.p;
  for (Semantics s : {Semantics::DmaLoad, Semantics::DmaStore, Semantics::DmaLoadAcc, Semantics::DmaStoreAcc}) {
    const int index = T.isa.bySemantics(s);
    if (index < 0) continue;
    const bool acc = s == Semantics::DmaLoadAcc || s == Semantics::DmaStoreAcc;
    const int64_t rowBytes = acc ? p.acc_row_bytes : p.spad_row_bytes;
    if (T.limit(s, 3) >= rowBytes) continue;
    const isa::InstrDesc& d = T.isa.instr(index);
    const std::string memory = acc ? "accumulator" : "scratchpad";
    throw Error("ISA '" + p.name + "': '" + d.name + "' moves at most " + std::to_string(T.limit(s, 3)) +
                " bytes per row (field 'bytes'), less than one " + memory + " row (" + std::to_string(rowBytes) +
                " bytes = " + memory + ".row_bytes); widen the field (bits: \"bits_for(" + memory +
                ".row_bytes)\") or narrow the array (" + (acc ? "array.cols" : "array.rows, array.cols") + ")");
  }
}

OnChipLayout chooseOnChipLayout(const TileContext& T) {
  const isa::Params& p = T.p;
  checkRowBytesFit(T);
  OnChipLayout l;
  const int64_t accRows = reachableRows(T, isa::RowSpace::Accumulator, p.acc_rows);
  const int64_t spadRows = reachableRows(T, isa::RowSpace::Scratchpad, p.spad_rows);
  // Up to four output-channel tiles per accumulation tile (so a small image is loaded once per
  // four of them), where their scale rows take at most 1/64 of the accumulator.
  l.oc_block = std::clamp<int64_t>(accRows / 256, 1, 4);
  l.scale_rows = 4 * l.oc_block;
  l.scale_base = accRows - l.scale_rows;
  l.acc_half = l.scale_base / 2;
  int64_t chunk = std::min(l.acc_half, (spadRows - 2 * p.array_rows) / 4);
  // A config with matmul_stream runs its matrix products on it (tile_matmul.cpp), whose `m` limits
  // one instruction's output tile, not the chunk (a chunk is several of them).
  const Semantics product =
      T.isa.bySemantics(Semantics::MatmulStream) >= 0 ? Semantics::MatmulStream : Semantics::MatmulTile;
  if (product == Semantics::MatmulTile && T.isa.bySemantics(product) >= 0) chunk = std::min(chunk, T.limit(product, 2));
  for (auto [s, k] : {std::pair{Semantics::DmaLoad, 2},
                      {Semantics::DmaStore, 2},
                      {Semantics::DmaLoadAcc, 2},
                      {Semantics::Requantize, 2},
                      {Semantics::VectorWiden, 2},
                      {Semantics::VectorAdd, 3},
                      {Semantics::VectorMax, 3},
                      {Semantics::VectorMul, 3},
                      {Semantics::VectorLut, 2}})
    if (T.isa.bySemantics(s) >= 0) chunk = std::min(chunk, T.limit(s, k));  // operators without it run on the host
  if (chunk < 1 || l.acc_half < 2)
    throw Error("ISA '" + p.name + "' has too little on-chip memory for this model" +
                narrowFieldsNote(spadRows, accRows, p));
  l.chunk = chunk;
  // Four load slots keep four steps' loads in flight (DRAM latency hidden behind three steps of
  // compute; more gained nothing on the model suite), where each still holds a weight tile or a
  // table and a whole chunk; else fewer, down to two.
  // A streamed reduction (matmul_stream) wants long load slots instead: the more slices one
  // holds, the fewer fills and drains per output tile; two still overlap a step's loads with the
  // previous step's compute.
  for (l.load_slots = product == Semantics::MatmulStream ? 3 : 4;; --l.load_slots) {
    l.slot_rows = (spadRows - 2 * chunk) / l.load_slots;
    if (l.load_slots == 2 || l.slot_rows >= std::max(p.array_rows, p.lut_rows) + chunk) break;
  }
  if (l.slot_rows < p.array_rows + chunk)
    throw Error("ISA '" + p.name + "': the scratchpad is too small for one weight tile and chunk" +
                narrowFieldsNote(spadRows, accRows, p));
  return l;
}

/// Program inputs: a haloed one gets an unpadded twin (buffer -2 - v) that the host writes and a
/// "Pad" layer copies into the haloed buffer.
void planInputs(TileContext& T, const Boundary& boundary) {
  TilePlan& plan = T.plan;
  for (int v : boundary.inputs) {
    if (plan.buffers.at(v).halo == 0) {
      plan.input_buffers.push_back(v);
      plan.tensors.push_back({v, v, isa::TensorKind::Input});
      continue;
    }
    ActBuffer plain = plan.buffers.at(v);
    plain.halo = 0;
    plain.id = -2 - v;
    plan.buffers[plain.id] = plain;
    plan.input_buffers.push_back(plain.id);
    plan.tensors.push_back({v, plain.id, isa::TensorKind::Input});
    const Value& val = T.g.values[static_cast<size_t>(v)];
    LayerPlan& pad = plan.layers.emplace_back();
    pad.name = val.name + ".pad";
    pad.op = "Pad";
    pad.output = val.name;
    pad.reads = {plain.id};
    pad.writes = v;
    pad.loops = "copy into the haloed buffer";
    const int32_t z = val.quant->zero_point.at(0);
    T.forEachImage({plain.id, v}, [&] {
      const ActBuffer& dst = plan.buffers.at(v);
      emitRescale(T, plan.buffers.at(plain.id), 0, dst, 0, dst.C, z, kIdentityMultiplier, kIdentityShift, z, T.actMin,
                  T.actMax);
      T.layer().min_dram_bytes = 2 * dst.H * dst.W * dst.C * T.lane;
    });
    T.barrier();
  }
}

void tileLayers(TileContext& T, const std::vector<int>& order, const std::set<int>& elided) {
  TilePlan& plan = T.plan;
  for (int id : order) {
    const Node& n = T.g.nodes[static_cast<size_t>(id)];
    const NpuOperator& op = *npuOperator(n.op.kind());
    LayerPlan& layer = plan.layers.emplace_back();
    layer.name = n.name;
    layer.op = n.op;
    layer.output = T.g.values[static_cast<size_t>(n.outputs[0])].name;
    layer.alias = op.alias || elided.count(id);
    for (int v : n.inputs)
      if (v >= 0 && !T.g.values[static_cast<size_t>(v)].is_constant) layer.reads.push_back(plan.buffers.at(v).id);
    layer.writes = plan.buffers.at(n.outputs[0]).id;
    if (layer.alias) continue;
    layer.macs = npuMacs(T.g, n);
    std::vector<int> values;
    for (int v : n.inputs)
      if (v >= 0 && !T.g.values[static_cast<size_t>(v)].is_constant) values.push_back(v);
    values.push_back(n.outputs[0]);
    T.forEachImage(values, [&] { op.tile(T, n); });
    T.barrier();
  }
}

void planLiveness(const Boundary& boundary, bool keepAll, TilePlan& plan) {
  // A haloed program input's own buffer is haloed, hence never released either.
  for (size_t i = 0; i < plan.layers.size(); ++i)
    for (int r : plan.layers[i].reads) plan.live_until[r] = static_cast<int>(i);
  for (int v : boundary.outputs) plan.live_until.erase(plan.buffers.at(v).id);
  for (int id : plan.input_buffers) plan.live_until.erase(id);  // the host's input region stays intact
  if (keepAll) plan.live_until.clear();
}

}  // namespace

TilePlan tileSegment(const Graph& g, const isa::IsaConfig& isa, const std::vector<int>& order,
                     const LowerOptions& options) {
  TilePlan plan;
  TileContext T(g, isa, plan);
  const Boundary boundary = segmentBoundary(g, order);
  placeValues(g, order, boundary, plan);
  // Intermediates kept for --check-intermediates are program tensors of their own.
  const std::set<int> elided = options.keep_intermediates ? std::set<int>{} : elideConcats(g, order, boundary, plan);
  applyHalos(T, haloNeeds(g, order, plan), plan);
  plan.layout = chooseOnChipLayout(T);
  planInputs(T, boundary);
  tileLayers(T, order, elided);
  planLiveness(boundary, options.keep_intermediates, plan);
  for (int v : boundary.outputs) plan.tensors.push_back({v, v, isa::TensorKind::Output});
  if (options.keep_intermediates)
    for (int id : order) {
      const int v = g.nodes[static_cast<size_t>(id)].outputs[0];
      if (std::find(boundary.outputs.begin(), boundary.outputs.end(), v) == boundary.outputs.end())
        plan.tensors.push_back({v, v, isa::TensorKind::Intermediate});
    }
  return plan;
}

}  // namespace systole::compiler
