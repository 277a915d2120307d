// Algorithm (memory planning: symbolic places -> rows and addresses):
//   1. Constants from DRAM address 0 up, 64-byte aligned, in the order the tilers made them.
//   2. Activations from the middle of the DRAM up, or right above the constants when they need
//      more than half: first-fit with reuse. Haloed buffers are placed first and never released
//      (their halo is initialised once, from the program's data, so their regions must never have
//      belonged to another tensor); then the program inputs (which the host writes, kept to the
//      end); then each layer's output as it appears, and a buffer is released after the last
//      layer that reads it (program outputs live to the end).
//   3. Slots: the steps that load take the load slots in turn, its output slot over the
//      steps that write one, and accumulation tiles alternate between the two accumulator halves
//      in program order. Every operand is resolved to its row or address.
#include "backend_passes.h"
#include "dram_allocator.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

void placeConstants(const isa::Params& p, TilePlan& plan) {
  uint64_t top = 0;
  for (const auto& bytes : plan.constants) {
    plan.constant_addr.push_back(top);
    top = (top + bytes.size() + 63) & ~uint64_t{63};
  }
  plan.constant_bytes = top;
  const auto dram = static_cast<uint64_t>(p.dram_size);
  if (top >= dram) throw Error("the model's constants (" + std::to_string(top) + " bytes) do not fit in the DRAM");
  plan.activation_base = top <= dram / 2 ? dram / 2 : (top + 4095) & ~uint64_t{4095};
}

void placeBuffers(const isa::Params& p, TilePlan& plan) {
  DramAllocator acts(plan.activation_base, static_cast<uint64_t>(p.dram_size));
  auto place = [&](int id) {
    plan.buffer_addr[id] = acts.allocate(static_cast<uint64_t>(plan.buffers.at(id).lanes() * (p.act_bits / 8)));
  };
  for (int id : plan.halo_buffers) place(id);
  for (int id : plan.input_buffers) place(id);
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const LayerPlan& layer = plan.layers[i];
    if (!layer.alias && !plan.buffer_addr.count(layer.writes)) place(layer.writes);
    for (int r : layer.reads) {
      auto last = plan.live_until.find(r);
      if (last != plan.live_until.end() && last->second == static_cast<int>(i) && plan.buffers.at(r).halo == 0)
        acts.release(plan.buffer_addr.at(r));
    }
  }
  plan.activation_peak = acts.peak();
}

/// Resolves the operands of every step, walking the program in order.
class SlotResolver {
 public:
  SlotResolver(const TilePlan& plan) : plan_(plan) {}

  void layer(LayerPlan& l) {
    for (PlanStep& step : l.steps) {
      if (step.barrier) continue;
      for (auto* list : {&step.loads, &step.computes, &step.stores})
        for (PlanInstr& in : *list)
          for (Operand& o : in.operands) resolve(o);
      loadSteps_ += !step.loads.empty();
      outputs_ += step.writes_output;
    }
    accTiles_ += l.acc_tiles;
  }

 private:
  void resolve(Operand& o) const {
    const OnChipLayout& l = plan_.layout;
    switch (o.space) {
      case Space::Imm: return;
      case Space::LoadSlot: o.resolve(l.loadSlot(static_cast<int>(loadSteps_ % l.load_slots)) + o.offset); return;
      case Space::OutSlot: o.resolve(l.outSlot(static_cast<int>(outputs_ % 2)) + o.offset); return;
      case Space::AccTile: o.resolve(l.accRow(static_cast<int>((accTiles_ + o.id) % 2)) + o.offset); return;
      case Space::Buffer: o.resolve(static_cast<int64_t>(plan_.buffer_addr.at(o.id)) + o.offset); return;
      case Space::Constant:
        o.resolve(static_cast<int64_t>(plan_.constant_addr.at(static_cast<size_t>(o.id))) + o.offset);
        return;
    }
  }

  const TilePlan& plan_;
  int64_t loadSteps_ = 0, outputs_ = 0, accTiles_ = 0;
};

}  // namespace

void planMemory(const isa::IsaConfig& isa, TilePlan& plan) {
  placeConstants(isa.params(), plan);
  placeBuffers(isa.params(), plan);
  SlotResolver resolver(plan);
  for (LayerPlan& layer : plan.layers) resolver.layer(layer);
}

}  // namespace systole::compiler
