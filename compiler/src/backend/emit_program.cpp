// Algorithm (emission: the scheduled plan -> an encoded program):
//   1. Data: the halo fill of every haloed buffer, then the constants.
//   2. Tensor table: program inputs, outputs, then (with keep_intermediates) every other value
//      the segment computes; 4-D tensors are NHWC with their halo.
//   3. Code: each layer's steps (loads, computes, stores; a barrier's nops) in order, the loads of
//      a step hoisted above the computes of the step before (program_order.cpp), then the epilogue; each instruction's
//      operands checked against its field by the builder.
//   4. Reports: per layer its instruction range, MACs, the cost model's prediction (its steps
//      chained as the program runs them, step_cost.cpp, plus one DRAM latency for the barrier to
//      the next layer) and the roofline bound.
#include <algorithm>
#include <cmath>

#include "backend_passes.h"
#include "systole/compiler/host_tensor.h"
#include "systole/isa/builder.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/pipeline.h"

namespace systole::compiler {

namespace {

void emitInstr(isa::ProgramBuilder& b, const PlanInstr& in) {
  std::vector<int64_t> values;
  values.reserve(in.operands.size());
  for (const Operand& o : in.operands) values.push_back(o.value());
  try {
    b.emit(in.semantics, values, in.tokens);
  } catch (const Error& e) {
    throw Error("code generation: " + e.message());
  }
}

BoundaryTensor addTensor(isa::ProgramBuilder& b, const Graph& g, const TilePlan& plan, const PlanTensor& t) {
  const Value& val = g.values[static_cast<size_t>(t.value)];
  const ActBuffer& buf = plan.buffers.at(t.buffer);
  const bool nhwc = val.shape.size() == 4;
  const std::vector<int64_t> shape =
      nhwc ? std::vector<int64_t>{buf.N, buf.paddedH(), buf.paddedW(), buf.C} : val.shape;
  b.addTensor({val.name, t.kind, val.type == ElemType::Int16 ? isa::DType::Int16 : isa::DType::Int8, shape,
               plan.buffer_addr.at(buf.id), val.quant->scale.at(0), val.quant->zero_point.at(0)});
  return {val.name, val.shape, nhwc, buf.halo};
}

LayerReport report(const isa::IsaConfig& isa, const OnChipLayout& layout, const LayerPlan& layer) {
  const isa::Params& p = isa.params();
  LayerReport r;
  r.name = layer.name;
  r.op = layer.op;
  r.output = layer.output;
  r.first_instruction = layer.first_instruction;
  r.end_instruction = layer.end_instruction;
  r.macs = layer.macs;
  r.min_dram_bytes = layer.min_dram_bytes;
  // The steps as the program runs them (step_cost.cpp; its store timeline includes the last
  // store reaching DRAM).
  r.predicted_cycles = predictStepCycles(isa, layout, layer.steps);
  r.roofline_cycles = roofline(p, r.macs, r.min_dram_bytes).boundCycles();
  return r;
}

}  // namespace

int64_t Roofline::boundCycles() const {
  return static_cast<int64_t>(std::ceil(std::max(compute_cycles, memory_cycles)));
}

Roofline roofline(const isa::Params& p, int64_t macs, int64_t min_dram_bytes) {
  return {static_cast<double>(macs) / static_cast<double>(p.array_rows * p.array_cols),
          static_cast<double>(min_dram_bytes) / static_cast<double>(p.dram_bytes_per_cycle)};
}

CompiledProgram emitProgram(const Graph& g, const isa::IsaConfig& isa, TilePlan& plan) {
  isa::ProgramBuilder b(isa);
  CompiledProgram result;
  const auto lane = static_cast<size_t>(isa.params().act_bits / 8);
  for (int id : plan.halo_buffers) {
    const ActBuffer& buf = plan.buffers.at(id);
    std::vector<uint8_t> fill;
    fill.reserve(static_cast<size_t>(buf.lanes()) * lane);
    for (int64_t i = 0; i < buf.lanes(); ++i) appendLane(fill, buf.fill, lane);
    b.addData(plan.buffer_addr.at(id), std::move(fill));
  }
  for (size_t k = 0; k < plan.constants.size(); ++k)
    b.addData(plan.constant_addr[k], std::move(plan.constants[k]));  // emission is the plan's last reader
  for (const PlanTensor& t : plan.tensors) {
    BoundaryTensor bt = addTensor(b, g, plan, t);
    (t.kind == isa::TensorKind::Input    ? result.inputs
     : t.kind == isa::TensorKind::Output ? result.outputs
                                         : result.intermediates)
        .push_back(std::move(bt));
  }
  size_t count = b.count() + plan.epilogue.size();
  for (const LayerPlan& layer : plan.layers)
    for (const PlanStep& step : layer.steps)
      count += step.sync.size() + step.loads.size() + step.computes.size() + step.stores.size();
  for (LayerPlan& layer : plan.layers) {
    layer.first_instruction = static_cast<uint32_t>(b.count());
    forEachInProgramOrder(layer.steps, static_cast<size_t>(isa.params().queue_depth[static_cast<int>(isa::Unit::Load)]),
                          static_cast<size_t>(isa.params().queue_depth[static_cast<int>(isa::Unit::Compute)]),
                          [&](const PlanInstr& in, size_t, StepPart, size_t) { emitInstr(b, in); });
    layer.end_instruction = static_cast<uint32_t>(b.count());
    if (!layer.alias) result.layers.push_back(report(isa, plan.layout, layer));
    std::vector<PlanStep>().swap(
        layer.steps);  // emitted and costed: freed as the program grows (a big model's plan is ~100 MB)
    b.flush(count * static_cast<size_t>(isa.params().instr_bytes));  // and the layer's code kept encoded only
  }
  for (const PlanInstr& in : plan.epilogue) emitInstr(b, in);
  result.program = std::move(b).build();
  result.dram_constant_bytes = static_cast<int64_t>(plan.constant_bytes);
  result.dram_activation_bytes = static_cast<int64_t>(plan.activation_peak);
  result.spad_rows_used = plan.layout.spadRowsUsed();
  result.acc_rows_used = isa.params().acc_rows;
  result.chunk_rows = plan.layout.chunk;
  return result;
}

}  // namespace systole::compiler
