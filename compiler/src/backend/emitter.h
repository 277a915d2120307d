// Emits a program as a sequence of *steps* and inserts the dependency tokens that make it safe
// for the three queues to run ahead of each other. A step is
//   loads    (load queue)    fill one of two load slots (scratchpad, accumulator rows),
//   computes (compute queue) read that slot; may end by writing one of two output slots,
//   stores   (store queue)   write that output slot to DRAM.
// Tokens (counted FIFOs, see docs/isa-semantics.md):
//   load -> compute   one per step with loads: the slot is full;
//   compute -> load   one per step with loads: the slot is free again (pushed by the step's last
//                     compute instruction, so accumulator rows the step used are free too);
//   compute -> store  one per output: the output slot is full;
//   store -> compute  one per output: the output slot is free again.
// A load into a slot pops a compute->load token once both slots are taken; a compute that writes
// an output slot pops a store->compute token once both are taken. barrier() separates layers:
// later loads wait until every earlier store has reached DRAM.
#pragma once

#include <initializer_list>
#include <vector>

#include "systole/isa/builder.h"

namespace systole::compiler {

class StepEmitter {
 public:
  explicit StepEmitter(isa::ProgramBuilder& builder) : b_(builder) {}

  /// Slot the next step's loads fill (0 or 1) and output slot its computes write.
  int loadSlot() const { return loadSteps_ % 2; }
  int outSlot() const { return outputs_ % 2; }

  void load(isa::Semantics s, std::initializer_list<int64_t> operands) { step_.loads.push_back(make(s, operands)); }
  void compute(isa::Semantics s, std::initializer_list<int64_t> operands) { step_.computes.push_back(make(s, operands)); }
  void store(isa::Semantics s, std::initializer_list<int64_t> operands) { step_.stores.push_back(make(s, operands)); }
  /// Marks that this step's computes write the output slot that its stores read.
  void writesOutput() { step_.writes_output = true; }

  /// Emits the step's instructions with their tokens.
  void endStep();
  /// Every store so far completes before any later load starts.
  void barrier();
  /// Drains the stores and emits finish.
  void finish();

  size_t size() const { return b_.instructions().size(); }

 private:
  struct Pending {
    isa::Semantics semantics;
    std::vector<int64_t> operands;
  };
  struct Step {
    std::vector<Pending> loads, computes, stores;
    bool writes_output = false;
  };
  static Pending make(isa::Semantics s, std::initializer_list<int64_t> operands) { return {s, operands}; }
  void emit(const Pending& p, uint8_t tokens);
  void emitNop(uint8_t tokens);

  isa::ProgramBuilder& b_;
  Step step_;
  int64_t loadSteps_ = 0;     // steps that filled a load slot
  int loadSlotsHeld_ = 0;     // load slots whose release the load queue has not consumed
  int64_t outputs_ = 0;       // output slots written
  int outSlotsHeld_ = 0;      // output slots whose release the compute queue has not consumed
  std::vector<size_t> releases_;  // instructions that pushed compute->load tokens, newest last
};

}  // namespace systole::compiler
