// Algorithm (the cost model of a layer's steps, from the YAML): per step, its loads' span with
// dma.outstanding transfers in flight (isa::dmaSpan: many short transfers are bounded by the
// latency window, not by their summed `issue`) and its computes' span through the hazard
// scoreboard (isa::computeSpan); then the steps are chained as the program runs them: step i + 1's
// loads start when step i's are done and step i - 1's computes have freed their slot; step i's
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
    steps.push_back({isa::dmaSpan(isa, isa::Unit::Load, begin, end), isa::computeSpan(isa, begin, end)});
  }
  // At step i: loadEnd is when step i's loads are done, computeEnd when step i - 1's computes are.
  int64_t loadEnd = steps.empty() ? 0 : steps[0].load, computeEnd = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    int64_t computeStart = std::max(computeEnd, loadEnd);
    if (i + 1 < steps.size()) {
      const Cost& next = steps[i + 1];
      const int64_t nextStart = std::max(loadEnd, computeEnd);  // its slot is step i - 1's
      loadEnd = nextStart + next.load;
    }
    computeEnd = computeStart + steps[i].compute;
  }
  return std::max(computeEnd, isa::dmaSpan(isa, isa::Unit::Store, stores.data(), stores.data() + stores.size()));
}

}  // namespace systole::compiler
