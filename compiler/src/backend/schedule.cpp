// Algorithm (scheduling: dependency tokens that let the three queues run ahead of each other):
// the program is its steps in order; each step's loads fill one of two load slots, its computes
// read that slot and may write one of two output slots, its stores drain that output slot.
// Tokens (counted FIFOs, see docs/isa-semantics.md):
//   load -> compute   one per step with loads: the slot is full;
//   compute -> load   one per step with loads: the slot is free again (pushed by the step's last
//                     compute instruction, so accumulator rows the step used are free too);
//   compute -> store  one per output: the output slot is full;
//   store -> compute  one per output: the output slot is free again.
// A load into a slot pops a compute->load token once both slots are taken; a compute that writes
// an output slot pops a store->compute token once both are taken. A barrier (between layers, and
// where a tiler asks for one) makes later loads wait until every earlier store reached DRAM: the
// slot releases that no load has consumed yet are withheld, the compute queue waits for every
// outstanding store, and two nops release both load slots again. The program ends by draining
// the stores and `finish`.
#include "backend_passes.h"

namespace systole::compiler {

using isa::Semantics;

namespace {

class TokenScheduler {
 public:
  void step(PlanStep& s) {
    const bool hasLoads = !s.loads.empty();
    for (size_t i = 0; i < s.loads.size(); ++i) {
      if (i == 0 && loadSlotsHeld_ == 2) {
        s.loads[i].tokens |= isa::kPopNext;  // wait until the compute queue released the slot
        --loadSlotsHeld_;
      }
      if (i + 1 == s.loads.size()) s.loads[i].tokens |= isa::kPushNext;
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
    for (int k = 0; k < loadSlotsHeld_; ++k) releases_[releases_.size() - 1 - static_cast<size_t>(k)]->tokens &= ~isa::kPushPrev;
    s.sync.reserve(static_cast<size_t>(outSlotsHeld_) + 2);  // pointers into it stay valid
    drainStores(s.sync);
    for (int k = 0; k < 2; ++k) {
      s.sync.push_back({Semantics::Nop, {}, isa::kPushPrev});
      releases_.push_back(&s.sync.back());
    }
    loadSlotsHeld_ = 2;  // both load slots now count as held, released only by these pushes
  }

  void drainStores(std::vector<PlanInstr>& out) {
    for (; outSlotsHeld_ > 0; --outSlotsHeld_) out.push_back({Semantics::Nop, {}, isa::kPopNext});
  }

 private:
  int loadSlotsHeld_ = 0;     // load slots whose release the load queue has not consumed
  int outSlotsHeld_ = 0;      // output slots whose release the compute queue has not consumed
  std::vector<PlanInstr*> releases_;  // instructions that push compute->load tokens, newest last
};

}  // namespace

void schedulePlan(TilePlan& plan) {
  TokenScheduler scheduler;
  for (LayerPlan& layer : plan.layers)
    for (PlanStep& s : layer.steps) s.barrier ? scheduler.barrier(s) : scheduler.step(s);
  plan.epilogue.clear();
  scheduler.drainStores(plan.epilogue);
  plan.epilogue.push_back({Semantics::Finish, {}, 0});
}

}  // namespace systole::compiler
