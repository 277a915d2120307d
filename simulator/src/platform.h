// The SystemC platform: a controller that dispatches instructions into the load, compute and store
// queues; one module per queue executing its instructions in order; and the DRAM, a TLM-2.0 target
// shared by both DMA units. This file only declares and wires the modules.
#pragma once

#include <deque>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "run_context.h"
#include "systole/isa/pipeline.h"

namespace systole::sim {

/// Extension describing a DMA instruction's use of the DRAM channel: the absolute cycle it starts
/// (a decoupled unit woken by a token may be behind SystemC time, which a non-negative delay
/// annotation cannot express) and its shape, `rows` rows of `row_bytes` bytes read or written in
/// DRAM (one row for a broadcast load, dma.broadcast).
struct DmaTiming : tlm::tlm_extension<DmaTiming> {
  uint64_t cycle = 0, rows = 0, row_bytes = 0;
  tlm::tlm_extension_base* clone() const override { return new DmaTiming(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const DmaTiming&>(other); }
};

/// DRAM as a loosely-timed TLM-2.0 target. Data moves through direct memory interface (DMI)
/// pointers, one per 64 KiB page; b_transport accounts the time. It annotates only the wait for the
/// shared data channel (contention): the access latency and the transfer time are already in the
/// DMA instructions' YAML timing. Another TLM-2.0 memory model can be bound in its place; the
/// DMA units fall back to b_transport for data when DMI is refused, and whatever delay the model
/// annotates is counted as DRAM stall.
class DramTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DramTarget> load_port{"load_port"};
  tlm_utils::simple_target_socket<DramTarget> store_port{"store_port"};

  DramTarget(sc_core::sc_module_name name, RunContext& ctx);

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  RunContext& ctx_;
};

/// One in-order instruction queue and the unit behind it, stepped by the platform's scheduler. The
/// unit keeps its own cycle count: `prepare` takes its next instruction and works out when it can
/// start (its queue slot, the unit, the instructions in flight, the tokens it pops); `commit`
/// executes it. Between the two the scheduler may commit another unit's instruction first.
class QueueUnit : public sc_core::sc_module {
 public:
  QueueUnit(sc_core::sc_module_name name, RunContext& ctx, isa::Unit unit);

  /// Initiator towards DRAM; only the DMA units (load, store) have one.
  std::unique_ptr<tlm_utils::simple_initiator_socket<QueueUnit>> dram;

  /// Makes the unit ready for a new run.
  void reset();
  /// True when the next instruction is ready to commit at `nextStart()`; false while the unit
  /// waits (for its queue to receive an instruction, or for a token) or has finished.
  bool prepare();
  uint64_t nextStart() const { return next_.start; }
  /// The prepared instruction's index in the program.
  uint32_t nextIndex() const { return next_.entry.index; }
  /// No instruction of this unit will start before this cycle.
  uint64_t earliestStart() const { return local_; }
  /// Executes the prepared instruction. A fault is raised in the run context.
  void commit();
  /// Called when the run has ended: the unit is done when its queue is closed and empty.
  void finish();

 private:
  /// Takes a token pushed by queue `from` for the prepared instruction; false if none is there yet.
  bool takeToken(int from);
  /// An instruction's time: to completion, and how long it occupies the unit (less when a DMA
  /// unit keeps several in flight).
  struct Timing {
    uint64_t cycles = 0, occupancy = 0;
  };
  /// Executes an instruction that starts at `start`; returns its time (YAML timing plus modelled
  /// contention). Throws FaultCause.
  Timing execute(const isa::InstrDesc& d, const isa::Instruction& in, const InstrTiming& yaml, uint64_t start);
  uint64_t executeDma(const isa::InstrDesc& d, const isa::Instruction& in, uint64_t start);
  /// Adds the instruction's scratchpad and accumulator bytes and vector elements to its region.
  void countSram(const isa::Params& p, const isa::InstrDesc& d, const isa::Instruction& in);
  /// Moves `len` bytes between DRAM at `addr` and `buffer` (untimed: the time is accounted per
  /// instruction). Returns any delay a memory model without DMI annotated, in cycles.
  uint64_t moveData(uint64_t addr, uint8_t* buffer, uint64_t len, bool toDram);

  RunContext& ctx_;
  isa::Unit unit_;
  int me_;
  /// The instruction taken from the queue and not yet committed, and its start so far.
  struct Prepared {
    bool valid = false;
    QueueEntry entry{};
    uint64_t start = 0;
    bool pop_prev = false, pop_next = false;     // tokens still to take
    isa::IssuePath path = isa::IssuePath::Main;  // compute: its issue path
  } next_;
  uint64_t local_ = 0;                           // when the unit can start its next instruction
  std::deque<uint64_t> inflight_;                // completion cycles of the instructions still in flight, in order
  isa::ComputeScoreboard board_{isa::Params{}};  // the compute unit's hazards; reset per run
  isa::ComputeAccesses accesses_;                // compute: the rows the instruction being committed reads and writes
  isa::IssuePaths paths_;                        // compute: when its issue paths are free, and program order
  tlm::tlm_generic_payload payload_;
  DmaTiming* timing_;  // owned by payload_
  tlm::tlm_dmi dmi_;   // the last DMI region granted
  bool dmiValid_ = false;
  std::vector<uint8_t> rowBuffer_;
  RunContext::RegionCursor cursor_;  // the region of the instruction being executed
  RegionStats* region_ = nullptr;    // and its statistics
};

/// Fetches the program in order and dispatches each instruction into its unit's queue, one per
/// cycle, stopping while the target queue is full.
class Controller : public sc_core::sc_module {
 public:
  Controller(sc_core::sc_module_name name, RunContext& ctx);
  void reset();
  /// Dispatches what it can; true if it dispatched anything or closed the queues.
  bool dispatch();

 private:
  RunContext& ctx_;
  uint32_t next_ = 0;   // the next instruction to dispatch
  uint64_t cycle_ = 0;  // the cycle the last one was dispatched
  bool closed_ = false;
  const InstructionQueue* full_ = nullptr;  // the full queue the next instruction waits for, if any
  uint64_t fullDepth_ = 0;                  // and its depth
  RunContext::RegionCursor region_;
};

/// The top: creates the modules, binds the DMA units to the DRAM and runs each program with one
/// SystemC thread that steps the units (see platform.cpp). Elaborated once per process.
class Platform : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Platform);
  explicit Platform(sc_core::sc_module_name name);
  RunContext ctx;

 private:
  void thread();
  void runProgram();
  DramTarget dram_{"dram", ctx};
  Controller controller_{"controller", ctx};
  QueueUnit load_{"load", ctx, isa::Unit::Load};
  QueueUnit compute_{"compute", ctx, isa::Unit::Compute};
  QueueUnit store_{"store", ctx, isa::Unit::Store};
};

}  // namespace systole::sim
