// Algorithm (scheduling: dependency tokens that let the three queues run ahead of each other):
// the program is its steps in order; the steps that load take the K = layout.load_slots load
// slots in turn, their computes read that slot and may write one of two output slots, their
// stores drain that output slot. Tokens (counted FIFOs, see docs/isa-semantics.md):
//   load -> compute   one per step with loads: the slot is full;
//   compute -> load   one per step with loads: the slot is free again (pushed by the step's last
//                     compute instruction, so accumulator rows the step used are free too);
//   compute -> store  one per output: the output slot is full;
//   store -> compute  one per output: the output slot is free again.
// A step's loads pop a compute->load token once all K slots are taken. A step that loads into
// the accumulator (bias, scale rows) pops until at most one slot is taken: the tilers alternate
// accumulation tiles and scale-row pairs between two places, so such a load must wait for the
// computes of the step two before it, whatever K is (its accumulator loads go after its other
// loads, which carry the pops). A compute that writes an output slot pops a store->compute token once
// both are taken. A barrier (between layers, and where a tiler asks for one) makes later loads
// wait until every earlier store reached DRAM: the slot releases that no load has consumed yet
// are withheld, the compute queue waits for every outstanding store, and K nops release the load
// slots again. The program ends by withholding the releases no load consumed (the simulator
// faults on a token never popped), draining the stores and `finish`.
#include <algorithm>

#include "backend_passes.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

class TokenScheduler {
 public:
  explicit TokenScheduler(int loadSlots) : loadSlots_(loadSlots) {}

  void step(PlanStep& s) {
    const bool hasLoads = !s.loads.empty();
    if (hasLoads) {
      const int pops = s.loadsAccumulator() ? std::max(0, loadSlotsHeld_ - 1) : loadSlotsHeld_ == loadSlots_ ? 1 : 0;
      // The loads into the accumulator go last, so that the pops ride on the loads before them;
      // where there are too few, on empty transfers (rows = 0: only the DMA latency).
      const auto firstAcc = std::stable_partition(
          s.loads.begin(), s.loads.end(), [](const PlanInstr& in) { return in.semantics != Semantics::DmaLoadAcc; });
      const int before = static_cast<int>(firstAcc - s.loads.begin()) + 1;
      for (int k = before; k < pops; ++k)
        s.loads.insert(s.loads.begin(), PlanInstr{Semantics::DmaLoad, {0, 0, 0, 0, 0}, 0});
      for (int k = 0; k < pops; ++k)
        s.loads[static_cast<size_t>(k)].tokens |= isa::kPopNext;  // wait until the compute queue released the slot
      loadSlotsHeld_ -= pops;
      s.loads.back().tokens |= isa::kPushNext;
    }
    loadSlotsHeld_ += hasLoads;
    for (size_t i = 0; i < s.computes.size(); ++i) {
      uint8_t& t = s.computes[i].tokens;
      if (i == 0 && hasLoads) t |= isa::kPopPrev;
      if (i == 0 && s.writes_output && outSlotsHeld_ == 2) {
        t |= isa::kPopNext;  // wait until the store queue released the output slot
        --outSlotsHeld_;
      }
      if (i + 1 == s.computes.size()) {
        if (hasLoads) t |= isa::kPushPrev, releases_.push_back(&s.computes[i]);
        if (s.writes_output) t |= isa::kPushNext;
      }
    }
    outSlotsHeld_ += s.writes_output;
    for (size_t i = 0; i < s.stores.size(); ++i) {
      if (i == 0) s.stores[i].tokens |= isa::kPopPrev;
      if (i + 1 == s.stores.size()) s.stores[i].tokens |= isa::kPushPrev;
    }
  }

  void barrier(PlanStep& s) {
    withholdUnconsumedReleases();
    s.sync.reserve(static_cast<size_t>(outSlotsHeld_ + loadSlots_));  // pointers into it stay valid
    drainStores(s.sync);
    for (int k = 0; k < loadSlots_; ++k) {
      s.sync.push_back({Semantics::Nop, {}, isa::kPushPrev});
      releases_.push_back(&s.sync.back());
    }
    loadSlotsHeld_ = loadSlots_;  // every load slot now counts as held, released only by these pushes
  }

  /// The slot releases no load has consumed push nothing (a token never popped is a fault).
  void withholdUnconsumedReleases() {
    for (int k = 0; k < loadSlotsHeld_; ++k)
      releases_[releases_.size() - 1 - static_cast<size_t>(k)]->tokens &= ~isa::kPushPrev;
  }

  void drainStores(std::vector<PlanInstr>& out) {
    for (; outSlotsHeld_ > 0; --outSlotsHeld_) out.push_back({Semantics::Nop, {}, isa::kPopNext});
  }

 private:
  int loadSlots_;
  int loadSlotsHeld_ = 0;             // load slots whose release the load queue has not consumed
  int outSlotsHeld_ = 0;              // output slots whose release the compute queue has not consumed
  std::vector<PlanInstr*> releases_;  // instructions that push compute->load tokens, newest last
};

}  // namespace

void schedulePlan(TilePlan& plan) {
  TokenScheduler scheduler(plan.layout.load_slots);
  for (LayerPlan& layer : plan.layers)
    for (PlanStep& s : layer.steps) s.barrier ? scheduler.barrier(s) : scheduler.step(s);
  plan.epilogue.clear();
  scheduler.withholdUnconsumedReleases();
  scheduler.drainStores(plan.epilogue);
  plan.epilogue.push_back({Semantics::Finish, {}, 0});
}

}  // namespace systole::compiler
