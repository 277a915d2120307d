// State of the run in progress, shared by the platform's modules: the program, the machine state,
// the instruction queues, the dependency-token FIFOs between neighbouring queues and the
// statistics. Times are absolute cycles; one cycle is one nanosecond of SystemC time.
#pragma once

#include <systemc>

#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "decode_cache.h"
#include "systole/isa/encoding.h"
#include "systole/sim/array_backend.h"
#include "systole/isa/dram_channel.h"
#include "systole/sim/fault.h"
#include "systole/sim/memory.h"
#include "systole/sim/stats.h"
#include "systole/sim/trace.h"

namespace systole::sim {

/// One cycle in SystemC's time resolution: the conversions below are integer arithmetic, not the
/// floating point of sc_time's unit constructors (which showed in timing-only profiles).
inline sc_core::sc_time::value_type cycleValue() {
  static const sc_core::sc_time::value_type perCycle = sc_core::sc_time(1, sc_core::SC_NS).value();
  return perCycle;
}
inline sc_core::sc_time cyclesToTime(uint64_t cycles) { return sc_core::sc_time::from_value(cycles * cycleValue()); }
/// SystemC time in cycles, rounded to the nearest.
inline uint64_t timeToCycles(const sc_core::sc_time& t) { return (t.value() + cycleValue() / 2) / cycleValue(); }

struct QueueEntry {
  uint32_t index;     // instruction index in the program
  uint64_t dispatch;  // cycle the controller placed it in the queue
};

/// One instruction queue. Instructions leave it when they start executing.
struct InstructionQueue {
  std::deque<QueueEntry> pending;
  std::vector<uint64_t> start_cycles;  // start cycle of the k-th instruction this queue received
  uint64_t dispatched = 0;
  bool closed = false;  // the controller will send nothing more

  void reset() {
    pending.clear();
    start_cycles.clear();
    dispatched = 0;
    closed = false;
  }
};

/// Tokens sent from one queue to a neighbour, each stamped with the cycle it was sent.
struct TokenFifo {
  std::deque<uint64_t> cycles;
};

/// What a unit is doing, for the deadlock report.
struct UnitStatus {
  bool done = false;
  int64_t waiting_instruction = -1;  // blocked on a token for this instruction
  int waiting_for = -1;              // the queue whose token it waits for
  uint64_t local_cycle = 0;          // the unit's own time (it runs ahead of SystemC time)
};

struct RunContext {
  const isa::IsaConfig* isa = nullptr;
  const std::vector<isa::Instruction>* program = nullptr;
  const std::vector<InstrTiming>* timing = nullptr;  // one per instruction of `program`
  MachineState* state = nullptr;
  PagedDram* dram = nullptr;
  ArrayBackend* array =
      nullptr;  // weight_preload / matmul_tile / matmul_stream / depthwise_tile backend; null: the C++ model
  bool timing_only = false, poison = false, record_trace = false;
  uint64_t base_cycle = 0;      // SystemC time at the start of the run
  uint64_t quantum_cycles = 0;  // how far the units may run ahead of SystemC time before it catches up

  InstructionQueue queues[isa::kNumUnits];
  TokenFifo tokens[isa::kNumUnits][isa::kNumUnits];  // [from][to]
  UnitStatus status[isa::kNumUnits];
  isa::DramChannel channel;
  Stats stats;                          // totals and by_opcode; the counters are kept per region
  std::vector<uint32_t> region_starts;  // SimOptions::region_starts ({0} when none)
  std::vector<RegionStats> regions;
  Trace trace;
  std::optional<Fault> fault;
  sc_core::sc_event start_run;

  const isa::Params& params() const { return isa->params(); }
  /// The region statistics an instruction is charged to, for one visitor of increasing indices.
  struct RegionCursor {
    size_t k = 0;
    RegionStats& at(RunContext& ctx, uint32_t index) {
      while (k + 1 < ctx.region_starts.size() && index >= ctx.region_starts[k + 1]) ++k;
      return ctx.regions[k];
    }
  };
  void raise(uint32_t index, const std::string& cause);
};

}  // namespace systole::sim
