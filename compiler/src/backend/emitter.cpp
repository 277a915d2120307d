#include "emitter.h"

#include "systole/isa/diagnostic.h"

namespace systole::compiler {

using isa::Semantics;

void StepEmitter::emit(const Pending& p, uint8_t tokens) {
  try {
    b_.emit(p.semantics, p.operands, tokens);
  } catch (const Error& e) {
    throw Error("code generation: " + e.message());
  }
}

void StepEmitter::emitNop(uint8_t tokens) { emit({Semantics::Nop, {}}, tokens); }

void StepEmitter::endStep() {
  Step s = std::move(step_);
  step_ = Step{};
  const bool hasLoads = !s.loads.empty();
  if (s.computes.empty()) throw Error("code generation: a step without compute instructions");
  if (s.writes_output == s.stores.empty()) throw Error("code generation: a step's output slot and its stores disagree");

  for (size_t i = 0; i < s.loads.size(); ++i) {
    uint8_t t = 0;
    if (i == 0 && loadSlotsHeld_ == 2) {
      t |= isa::kPopNext;  // wait until the compute queue released the slot
      --loadSlotsHeld_;
    }
    if (i + 1 == s.loads.size()) t |= isa::kPushNext;
    emit(s.loads[i], t);
  }
  if (hasLoads) {
    ++loadSteps_;
    ++loadSlotsHeld_;
  }
  for (size_t i = 0; i < s.computes.size(); ++i) {
    uint8_t t = 0;
    if (i == 0 && hasLoads) t |= isa::kPopPrev;
    if (i == 0 && s.writes_output && outSlotsHeld_ == 2) {
      t |= isa::kPopNext;  // wait until the store queue released the output slot
      --outSlotsHeld_;
    }
    if (i + 1 == s.computes.size()) {
      if (hasLoads) {
        t |= isa::kPushPrev;
        releases_.push_back(b_.instructions().size());
      }
      if (s.writes_output) t |= isa::kPushNext;
    }
    emit(s.computes[i], t);
  }
  if (s.writes_output) {
    ++outputs_;
    ++outSlotsHeld_;
  }
  for (size_t i = 0; i < s.stores.size(); ++i) {
    uint8_t t = 0;
    if (i == 0) t |= isa::kPopPrev;
    if (i + 1 == s.stores.size()) t |= isa::kPushPrev;
    emit(s.stores[i], t);
  }
}

void StepEmitter::barrier() {
  // Withhold the slot releases the load queue has not consumed yet: they are pushed again below,
  // after the compute queue has seen every store complete, so the next loads wait for the stores.
  for (int k = 0; k < loadSlotsHeld_; ++k) {
    const size_t at = releases_[releases_.size() - 1 - static_cast<size_t>(k)];
    b_.instructions()[at].tokens &= static_cast<uint8_t>(~isa::kPushPrev);
  }
  for (; outSlotsHeld_ > 0; --outSlotsHeld_) emitNop(isa::kPopNext);
  // Both load slots now count as held, released only by these pushes.
  for (int k = 0; k < 2; ++k) {
    releases_.push_back(b_.instructions().size());
    emitNop(isa::kPushPrev);
  }
  loadSlotsHeld_ = 2;
}

void StepEmitter::finish() {
  for (; outSlotsHeld_ > 0; --outSlotsHeld_) emitNop(isa::kPopNext);
  emit({Semantics::Finish, {}}, 0);
}

}  // namespace systole::compiler
