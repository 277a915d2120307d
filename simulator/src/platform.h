// The SystemC platform: a controller that dispatches instructions into the load, compute and store
// queues; one module per queue executing its instructions in order; and the DRAM, a TLM-2.0 target
// shared by both DMA units. This file only declares and wires the modules.
#pragma once

#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "run_context.h"

namespace systole::sim {

/// Extension carrying the absolute cycle at which a DMA asks for DRAM. A decoupled unit woken by a
/// token may be behind SystemC time, where a (non-negative) delay annotation cannot express it.
struct RequestCycle : tlm::tlm_extension<RequestCycle> {
  uint64_t cycle = 0;
  tlm::tlm_extension_base* clone() const override {
    auto* e = new RequestCycle;
    e->cycle = cycle;
    return e;
  }
  void copy_from(const tlm::tlm_extension_base& other) override { cycle = static_cast<const RequestCycle&>(other).cycle; }
};

/// DRAM as a loosely-timed TLM-2.0 target. It annotates only the wait for the shared data channel
/// (contention); the access latency and transfer time are in the DMA instructions' YAML timing.
/// Another TLM-2.0 memory model can be bound in its place; whatever delay it annotates is counted
/// as DRAM stall.
class DramTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DramTarget> load_port{"load_port"};
  tlm_utils::simple_target_socket<DramTarget> store_port{"store_port"};

  DramTarget(sc_core::sc_module_name name, RunContext& ctx);

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  RunContext& ctx_;
};

/// One in-order instruction queue and the unit behind it. The unit runs temporally decoupled: it
/// keeps its own cycle count and synchronises with SystemC time only when it is a quantum ahead or
/// must wait for another unit (a token, or an empty queue).
class QueueUnit : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(QueueUnit);
  QueueUnit(sc_core::sc_module_name name, RunContext& ctx, isa::Unit unit);

  /// Initiator towards DRAM; only the DMA units (load, store) have one.
  std::unique_ptr<tlm_utils::simple_initiator_socket<QueueUnit>> dram;

 private:
  void thread();
  void runProgram();
  bool popToken(int from, const QueueEntry& e, uint64_t& cycle);
  void pushToken(int to, uint64_t cycle);
  /// Executes an instruction that starts at `start`; returns its cycles (YAML timing plus
  /// modelled contention). Throws FaultCause.
  uint64_t execute(const isa::InstrDesc& d, const isa::Instruction& in, uint64_t start);
  uint64_t executeDma(const isa::InstrDesc& d, const isa::Instruction& in, uint64_t start);
  void syncIfAhead();

  RunContext& ctx_;
  isa::Unit unit_;
  int me_;
  uint64_t local_ = 0;
  tlm::tlm_generic_payload payload_;
  RequestCycle* requestCycle_;  // owned by payload_
  std::vector<uint8_t> rowBuffer_;
};

/// Fetches the program in order and dispatches each instruction into its unit's queue, one per
/// cycle, stalling while the target queue is full.
class Controller : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Controller);
  Controller(sc_core::sc_module_name name, RunContext& ctx);

 private:
  void thread();
  void runProgram();
  RunContext& ctx_;
};

/// The top: creates the modules and binds the DMA units to the DRAM. Elaborated once per process.
class Platform : public sc_core::sc_module {
 public:
  explicit Platform(sc_core::sc_module_name name);
  RunContext ctx;

 private:
  DramTarget dram_{"dram", ctx};
  Controller controller_{"controller", ctx};
  QueueUnit load_{"load", ctx, isa::Unit::Load};
  QueueUnit compute_{"compute", ctx, isa::Unit::Compute};
  QueueUnit store_{"store", ctx, isa::Unit::Store};
};

}  // namespace systole::sim
