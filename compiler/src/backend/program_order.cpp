// Algorithm (program order of a layer's steps): each queue's instructions keep their order (the
// tokens depend on nothing else), but the loads of step i + 1 are placed before and among the
// computes of step i: the controller dispatches in program order, so otherwise the next step's
// loads could not reach the load queue until the compute queue had taken in nearly all of step i,
// and loading would not overlap computing. At most a load queue of them goes first (more would
// keep the in-order dispatcher from reaching step i's computes until the queue drains); the rest
// are spread evenly among step i's computes beyond the first compute queue's worth, so the
// dispatcher feeds both queues at about the rate each drains (a step of many computes would
// otherwise hold the rest of the next step's loads until the compute queue had taken in nearly all
// of them, exposing their DRAM latency). A step whose computes all fit the compute queue has them
// after its stores, as its computes never hold the dispatcher. Loads never move across a barrier (they would wait
// for its nops, which could then never be dispatched past a full load queue).
#include "tile_plan.h"

namespace systole::compiler {

void forEachInProgramOrder(const std::vector<PlanStep>& steps, size_t loadQueue, size_t computeQueue,
                           const ProgramOrderVisitor& visit) {
  auto list = [&](size_t i, StepPart part, const std::vector<PlanInstr>& in, size_t from = 0, size_t to = SIZE_MAX) {
    for (size_t k = from; k < std::min(to, in.size()); ++k) visit(in[k], i, part, k);
  };
  bool loadsVisited = false;  // step i's loads went out with step i - 1
  for (size_t i = 0; i < steps.size(); ++i) {
    const PlanStep& s = steps[i];
    list(i, StepPart::Sync, s.sync);
    if (!loadsVisited) list(i, StepPart::Load, s.loads);
    loadsVisited = !s.barrier && i + 1 < steps.size() && !steps[i + 1].barrier;
    static const std::vector<PlanInstr> none;
    const std::vector<PlanInstr>& next = loadsVisited ? steps[i + 1].loads : none;
    list(i + 1, StepPart::Load, next, 0, loadQueue);
    // The rest of step i + 1's loads, among the computes beyond the first compute queue's worth
    // (those enter the queue without waiting): the r-th after compute head + floor((r + 1) * n / (rest + 1)).
    const size_t C = s.computes.size(), rest = next.size() > loadQueue ? next.size() - loadQueue : 0;
    const size_t head = std::min(C, computeQueue), n = C - head;
    size_t sent = 0;
    for (size_t k = 0; k < C; ++k) {
      visit(s.computes[k], i, StepPart::Compute, k);
      for (; k >= head && sent < rest && (sent + 1) * n <= (k + 1 - head) * (rest + 1); ++sent)
        visit(next[loadQueue + sent], i + 1, StepPart::Load, loadQueue + sent);
    }
    list(i, StepPart::Store, s.stores);
    list(i + 1, StepPart::Load, next, loadQueue + sent);
  }
}

}  // namespace systole::compiler
