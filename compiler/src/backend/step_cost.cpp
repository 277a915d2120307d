// Algorithm (the cost model of a layer's steps, from the YAML): per step, its loads' span with
// dma.outstanding transfers in flight (isa::dmaSpan: many short transfers are bounded by the
// latency window, not by their summed `issue`) and its computes' span through the hazard
// scoreboard (isa::computeSpan); then the steps are chained as the program runs them (the
// scheduler's tokens, schedule.cpp): step i's loads start when step i - 1's are done and step
// i - K's computes have freed its slot (K load slots; step i - 2's when it loads the
// accumulator); step i's
// computes start when its loads are done (emission puts at most a load queue of step i + 1's loads
// before them, so the in-order dispatcher always reaches them). The stores' span bounds the whole
// from below. Unplaced accumulation tiles take their half by
// tile number (as memory planning alternates them); other unplaced places their offset.
#include <algorithm>

#include "systole/isa/pipeline.h"
#include "tile_plan.h"

namespace systole::compiler {

int64_t predictStepCycles(const isa::IsaConfig& isa, const OnChipLayout& layout, const std::vector<PlanStep>& plan) {
  struct Cost {
    int64_t load = 0, compute = 0;  // load span, compute span
    bool loads_accumulator = false;
  };
  std::vector<Cost> steps;
  std::vector<isa::Instruction> stores;
  for (const PlanStep& step : plan) {
    if (step.barrier) continue;
    std::vector<isa::Instruction> code;
    for (const auto* list : {&step.loads, &step.computes, &step.stores})
      for (PlanInstr in : *list) {
        for (Operand& o : in.operands)
          if (o.space == Space::AccTile && !o.resolved) o.resolved = layout.accRow(o.id % 2) + o.offset;
        if (const isa::Instruction i = toInstruction(isa, in); i.desc >= 0) (list == &step.stores ? stores : code).push_back(i);
      }
    const isa::Instruction *begin = code.data(), *end = code.data() + code.size();
    steps.push_back({isa::dmaSpan(isa, isa::Unit::Load, begin, end), isa::computeSpan(isa, begin, end), step.loadsAccumulator()});
  }
  // computeEnd[i]: when step i's computes are done.
  const size_t K = static_cast<size_t>(layout.load_slots);
  std::vector<int64_t> computeEnd(steps.size(), 0);
  int64_t loadEnd = 0, lastCompute = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const size_t freedBy = steps[i].loads_accumulator ? 2 : K;  // the step whose computes free the slot
    const int64_t loadStart = std::max(loadEnd, i >= freedBy ? computeEnd[i - freedBy] : 0);
    loadEnd = loadStart + steps[i].load;
    lastCompute = computeEnd[i] = std::max(lastCompute, loadEnd) + steps[i].compute;
  }
  return std::max(lastCompute, isa::dmaSpan(isa, isa::Unit::Store, stores.data(), stores.data() + stores.size()));
}

}  // namespace systole::compiler
