// Algorithm (the cost model of a layer's steps, from the YAML): the load, compute and store units
// each run one timeline through all the steps, the simulator's rules: isa::DmaTimeline (at most
// dma.outstanding transfers in flight, so short transfers are bounded by the latency window, not
// only by their summed `issue`) and isa::ComputeTimeline (the hazard scoreboard: a step's first
// matmul overlaps the drain of the last one before it). The steps are chained by the scheduler's
// tokens (schedule.cpp), popped as the scheduler pops them: a step that loads takes a load slot;
// with all K held, its first load pops the oldest release (the computes of the step K before it
// completed); a step that loads the accumulator pops until one slot is held, one release per load
// from its first on, and its accumulator loads go after every pop. A step's first compute starts
// no earlier than its loads have completed (emission puts at most a load queue of step i + 1's
// loads before step i's computes, so the in-order dispatcher always reaches them). Stores are
// bounded by their own timeline only. Unplaced accumulation tiles take their half by tile number
// (as memory planning alternates them); other unplaced places their offset.
#include <algorithm>

#include "systole/isa/pipeline.h"
#include "tile_plan.h"

namespace systole::compiler {

namespace {

/// The controller: one instruction dispatched per cycle in program order, into a unit's queue only
/// once the instruction `depth` places earlier in it has started.
class Dispatcher {
 public:
  explicit Dispatcher(const isa::Params& p) {
    for (int u = 0; u < isa::kNumUnits; ++u)
      started_[u].assign(static_cast<size_t>(std::max<int64_t>(1, p.queue_depth[u])), 0);
  }
  uint64_t dispatch(isa::Unit unit) {
    auto& ring = started_[static_cast<int>(unit)];
    cycle_ = std::max(cycle_ + (first_ ? 0 : 1), ring[next_[static_cast<int>(unit)]]);
    first_ = false;
    return cycle_;
  }
  void started(isa::Unit unit, uint64_t at) {
    const int u = static_cast<int>(unit);
    started_[u][next_[u]] = at;
    next_[u] = (next_[u] + 1) % started_[u].size();
  }

 private:
  std::vector<uint64_t> started_[isa::kNumUnits];  // start cycles of each queue's last `depth` instructions
  size_t next_[isa::kNumUnits] = {0, 0, 0};
  uint64_t cycle_ = 0;
  bool first_ = true;
};

}  // namespace

int64_t predictStepCycles(const isa::IsaConfig& isa, const OnChipLayout& layout, const std::vector<PlanStep>& plan) {
  const isa::Params& p = isa.params();
  const size_t K = static_cast<size_t>(layout.load_slots);
  isa::DramChannel channel;  // shared by the two DMA units
  isa::DmaTimeline load(isa, isa::Unit::Load, &channel), store(isa, isa::Unit::Store, &channel);
  isa::ComputeTimeline compute(isa);
  Dispatcher dispatcher(p);
  // Per step that loads, in order: when its computes completed (its slot free again); per output
  // slot use: when its stores completed (the slot free again).
  std::vector<uint64_t> released, loaded(plan.size(), 0), computed(plan.size(), 0), outputFreed;
  // The scheduler's load-slot tokens: slots held, releases popped so far, and the current step's
  // pops (the first `pops` of its loads other than accumulator loads pop releases firstPop, ...;
  // pops beyond those ride on empty transfers at its start).
  size_t held = 0, consumed = 0, pops = 0, firstPop = 0, popsAhead = 0, plainSeen = 0;
  const auto releasedAt = [&](size_t j) { return j < released.size() ? released[j] : uint64_t{0}; };
  uint64_t afterBarrier = 0;
  const auto toRun = [&](PlanInstr in) {
    for (Operand& o : in.operands)
      if (o.space == Space::AccTile && !o.is_resolved) o.resolve(layout.accRow(o.id % 2) + o.offset);
    return toInstruction(isa, in);
  };
  forEachInProgramOrder(plan, static_cast<size_t>(p.queue_depth[static_cast<int>(isa::Unit::Load)]),
                        static_cast<size_t>(p.queue_depth[static_cast<int>(isa::Unit::Compute)]),
                        [&](const PlanInstr& planned, size_t i, StepPart part, size_t k) {
                          const PlanStep& step = plan[i];
                          if (part == StepPart::Sync) {  // a barrier: later loads wait for every earlier store
                            afterBarrier = store.end();
                            // The unconsumed releases are withheld; the barrier releases every slot.
                            consumed = released.size();
                            released.insert(released.end(), K, afterBarrier);
                            held = K;
                            return;
                          }
                          const isa::Instruction in = toRun(planned);
                          if (in.desc < 0) return;
                          const isa::Unit unit = isa.instr(in.desc).unit;
                          uint64_t notBefore = dispatcher.dispatch(unit);
                          const bool last = k + 1 == (part == StepPart::Load      ? step.loads
                                                      : part == StepPart::Compute ? step.computes
                                                                                  : step.stores)
                                                         .size();
                          uint64_t start = 0;
                          if (part == StepPart::Load) {
                            if (k == 0) {
                              pops = step.loadsAccumulator() ? (held > 0 ? held - 1 : 0) : held == K ? 1 : 0;
                              firstPop = consumed, consumed += pops, held = held + 1 - pops, plainSeen = 0;
                              const auto plain = static_cast<size_t>(std::count_if(
                                  step.loads.begin(), step.loads.end(),
                                  [](const PlanInstr& l) { return l.semantics != isa::Semantics::DmaLoadAcc; }));
                              popsAhead = pops > plain ? pops - plain : 0;
                              notBefore = std::max(notBefore, afterBarrier);
                              if (popsAhead > 0) notBefore = std::max(notBefore, releasedAt(firstPop + popsAhead - 1));
                            }
                            // An accumulator load goes after every pop; a plain load pops the next release.
                            const bool acc = planned.semantics == isa::Semantics::DmaLoadAcc;
                            const size_t pop = acc ? pops : popsAhead + plainSeen++;
                            if (pops > 0 && (acc || pop < pops))
                              notBefore = std::max(notBefore, releasedAt(firstPop + std::min(pop, pops - 1)));
                            start = load.issue(in, notBefore);
                            if (last) loaded[i] = load.done();  // the "slot full" token
                          } else if (part == StepPart::Compute) {
                            if (k == 0 && !step.loads.empty()) notBefore = std::max(notBefore, loaded[i]);
                            if (k == 0 && step.writes_output && outputFreed.size() >= 2)
                              notBefore = std::max(notBefore, outputFreed[outputFreed.size() - 2]);
                            start = compute.issue(in, notBefore);
                            if (last && !step.loads.empty()) released.push_back(compute.done());
                            if (last) computed[i] = compute.done();
                          } else {
                            start = store.issue(in, k == 0 ? std::max(notBefore, computed[i]) : notBefore);
                            if (last) outputFreed.push_back(store.done());
                          }
                          dispatcher.started(unit, start);
                        });
  return static_cast<int64_t>(std::max({compute.end(), load.end(), store.end()}));
}

}  // namespace systole::compiler
