// The tile plan as text (--emit=tiles|memory|schedule). Operands print by their operand names;
// a symbolic place prints as its base plus offset (`%x+96`, `load+18`, `out+0`, `acc3+0`, `#2+64`)
// and, once memory planning resolved it, `=` its row or address. Each step shows its loop indices
// and its predicted cycles per unit (the sum of its instructions' occupancies: the timing
// expressions, or `issue` where the unit overlaps them).
#include <sstream>

#include "tile_plan.h"

namespace systole::compiler {

isa::Instruction toInstruction(const isa::IsaConfig& isa, const PlanInstr& in) {
  isa::Instruction out;
  out.desc = isa.bySemantics(in.semantics);
  out.tokens = in.tokens;
  if (out.desc < 0) return out;
  const auto& d = isa.instr(out.desc);
  for (size_t k = 0; k < in.operands.size(); ++k)
    out.fields[static_cast<size_t>(d.operand_field[k])] = in.operands[k].value();
  return out;
}

StepCycles stepCycles(const isa::IsaConfig& isa, const PlanStep& step) {
  StepCycles c;
  for (const auto* list : {&step.sync, &step.loads, &step.computes, &step.stores})
    for (const PlanInstr& in : *list) {
      const isa::Instruction i = toInstruction(isa, in);
      if (i.desc >= 0) c.unit[static_cast<int>(isa.instr(i.desc).unit)] += isa::occupancyCycles(isa, i);
    }
  return c;
}

namespace {

class Printer {
 public:
  Printer(const isa::IsaConfig& isa, const Graph& g, const TilePlan& plan) : isa_(isa), g_(g), plan_(plan) {}

  std::string bufferName(int id) const {
    if (id >= 0) return "%" + g_.values[static_cast<size_t>(id)].name;
    return "%" + g_.values[static_cast<size_t>(-2 - id)].name + ".unpadded";
  }

  void operand(const Operand& o) {
    switch (o.space) {
      case Space::Imm: out_ << o.offset; return;
      case Space::LoadSlot: out_ << "load"; break;
      case Space::OutSlot: out_ << "out"; break;
      case Space::AccTile: out_ << "acc" << o.id; break;
      case Space::Buffer: out_ << bufferName(o.id); break;
      case Space::Constant: out_ << "#" << o.id; break;
    }
    out_ << (o.offset < 0 ? "" : "+") << o.offset;
    if (o.is_resolved) out_ << "=" << o.row;
  }

  void instr(const PlanInstr& in) {
    const auto& info = isa::semanticsInfo(in.semantics);
    out_ << "    " << info.name;
    for (size_t k = 0; k < in.operands.size(); ++k) {
      out_ << (k ? ", " : " ") << info.operands[k] << "=";
      operand(in.operands[k]);
    }
    for (int f = 0; f < isa::kNumTokenFlags; ++f)
      if (in.tokens & (1 << f)) out_ << " " << isa::kTokenFlagNames[static_cast<size_t>(f)];
    out_ << "\n";
  }

  void step(size_t index, const PlanStep& s) {
    if (s.barrier) {
      out_ << "  barrier\n";
      for (const PlanInstr& in : s.sync) instr(in);
      return;
    }
    const StepCycles c = stepCycles(isa_, s);
    out_ << "  step " << index << " [" << s.loop << "]: cycles load " << c.unit[0] << ", compute " << c.unit[1]
         << ", store " << c.unit[2] << "\n";
    for (const auto* list : {&s.loads, &s.computes, &s.stores})
      for (const PlanInstr& in : *list) instr(in);
  }

  void header() {
    const OnChipLayout& l = plan_.layout;
    out_ << "on-chip: chunk " << l.chunk << " rows, load slots " << l.load_slots << " x " << l.slot_rows
         << " rows, output slots " << l.chunk << " rows, accumulator halves " << l.acc_half << " rows, scale rows "
         << l.scale_rows << "\n";
    for (const auto& [id, b] : plan_.buffers) {
      if (b.id != id) continue;  // an alias: printed with its layer
      out_ << "buffer " << bufferName(id) << ": " << (b.N > 1 ? std::to_string(b.N) + "x" : "") << b.H << "x" << b.W
           << "x" << b.C << " NHWC";
      if (b.halo) out_ << ", halo " << b.halo << " filled with " << b.fill;
      if (plan_.buffer_addr.count(id)) out_ << " @ " << plan_.buffer_addr.at(id);
      out_ << "\n";
    }
    for (size_t k = 0; k < plan_.constants.size(); ++k) {
      out_ << "constant #" << k << ": " << plan_.constant_names[k] << ", " << plan_.constants[k].size() << " bytes";
      if (k < plan_.constant_addr.size()) out_ << " @ " << plan_.constant_addr[k];
      out_ << "\n";
    }
  }

  std::string print() {
    header();
    for (const LayerPlan& layer : plan_.layers) {
      out_ << "layer " << layer.name << " (" << layer.op << ")";
      if (layer.alias) {
        out_ << ": alias of " << bufferName(layer.writes) << "\n";
        continue;
      }
      out_ << ": " << layer.loops << "; " << layer.macs << " MACs, " << layer.steps.size() << " steps\n";
      for (size_t i = 0; i < layer.steps.size(); ++i) step(i, layer.steps[i]);
    }
    for (const PlanInstr& in : plan_.epilogue) instr(in);
    return out_.str();
  }

 private:
  const isa::IsaConfig& isa_;
  const Graph& g_;
  const TilePlan& plan_;
  std::ostringstream out_;
};

}  // namespace

std::string printPlan(const isa::IsaConfig& isa, const Graph& g, const TilePlan& plan) {
  return Printer(isa, g, plan).print();
}

}  // namespace systole::compiler
