// Algorithm (program order of a layer's steps): each queue's instructions keep their order (the
// tokens depend on nothing else), but the loads of step i + 1 are placed before the computes of
// step i: the controller dispatches in program order, so otherwise the next step's loads could not
// reach the load queue until the compute queue had taken in nearly all of step i, and loading
// would not overlap computing. At most a load queue of them goes first (more would keep the
// in-order dispatcher from reaching step i's computes until the queue drains); the rest follow
// step i's stores. Loads never move across a barrier (they would wait for its nops, which could
// then never be dispatched past a full load queue).
#include "tile_plan.h"

namespace systole::compiler {

void forEachInProgramOrder(const std::vector<PlanStep>& steps, size_t loadQueue, const ProgramOrderVisitor& visit) {
  auto list = [&](size_t i, StepPart part, const std::vector<PlanInstr>& in, size_t from = 0, size_t to = SIZE_MAX) {
    for (size_t k = from; k < std::min(to, in.size()); ++k) visit(in[k], i, part, k);
  };
  bool loadsVisited = false;  // step i's loads went out with step i - 1
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& s = steps[i];
    list(i, StepPart::Sync, s.sync);
    if (!loadsVisited) list(i, StepPart::Load, s.loads);
    loadsVisited = !s.barrier && i + 1 < steps.size() && !steps[i + 1].barrier;
    if (loadsVisited) list(i + 1, StepPart::Load, steps[i + 1].loads, 0, loadQueue);
    list(i, StepPart::Compute, s.computes);
    list(i, StepPart::Store, s.stores);
    if (loadsVisited) list(i + 1, StepPart::Load, steps[i + 1].loads, loadQueue);
  }
}

}  // namespace systole::compiler
