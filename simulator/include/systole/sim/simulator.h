// Running programs on the simulated NPU. The SystemC platform is elaborated once per process (a
// SystemC rule) and is not specific to a config: each run binds a config, a program and fresh
// machine state to it, so one process can run many programs on many configs, one at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "systole/isa/encoding.h"
#include "systole/isa/program.h"
#include "systole/sim/array_backend.h"
#include "systole/sim/fault.h"
#include "systole/sim/stats.h"
#include "systole/sim/trace.h"

namespace systole::sim {

struct PreparedProgram;

struct SimOptions {
  bool timing_only = false;  // same cycles and stats, no data loaded, computed or moved
  bool poison = false;       // fault on reads of never-written scratchpad/accumulator rows
  bool races = false;  // fault before running if two queues' accesses to a row are not ordered by tokens (race_check.h)
  bool trace = false;  // write a Chrome trace (SimResult::trace_json); implies timeline
  bool timeline = false;  // record each instruction's dispatch and cycles (SimResult::timeline)
  /// Statistics per region of the program (Stats::regions): region k holds the instructions from
  /// region_starts[k] up to the next start. Must begin at 0 and not decrease; empty: one region.
  std::vector<uint32_t> region_starts;
  uint64_t quantum_cycles = 1000;  // how far a unit may run ahead of SystemC time
  /// Runs the array's instructions (weight_preload, matmul_tile, matmul_stream, depthwise_tile), e.g. the
  /// Verilated RTL; null: the C++ model. Not owned; reset at the start of the run. Its cycle counts
  /// must equal the YAML timing (a fault otherwise).
  ArrayBackend* array = nullptr;
};

/// A tensor's bytes as laid out in DRAM (row-major, little-endian).
struct TensorValue {
  isa::TensorInfo info;
  std::vector<uint8_t> bytes;
};

struct SimResult {
  Stats stats;
  std::vector<TensorValue> outputs;  // output and intermediate tensors, in table order (none in timing-only mode)
  std::string trace_json;            // Chrome trace-event JSON when SimOptions::trace
  std::vector<TraceSlice> timeline;  // every executed instruction's cycles with SimOptions::trace or timeline
};

class Simulator {
 public:
  explicit Simulator(const isa::IsaConfig& isa);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Runs `program` with the given input tensors (by name; every input of the program's tensor
  /// table is required). Throws Fault on a simulation fault, Error on bad inputs.
  SimResult run(const isa::Program& program, const std::map<std::string, std::vector<uint8_t>>& inputs,
                const SimOptions& options = {});

  /// Runs an already-decoded program with the given DRAM image (used by benchmarks and tests that
  /// need no tensor table). Unlike run(), it prepares the program afresh on every call.
  SimResult runDecoded(const std::vector<isa::Instruction>& program, const std::vector<isa::DataSegment>& data,
                       const SimOptions& options = {});

  const isa::IsaConfig& isa() const { return isa_; }

 private:
  struct Segment {
    uint64_t dram_addr;
    std::span<const uint8_t> bytes;
  };
  SimResult runPrepared(const PreparedProgram& program, std::span<const Segment> image, const SimOptions& options);

  const isa::IsaConfig& isa_;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace systole::sim
