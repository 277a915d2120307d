// Running a compiled model: the runtime binds float inputs to the program's tensors (quantizing
// them and turning NCHW into the NPU's NHWC), runs the program on the simulator, and turns the
// outputs back into float tensors. With a reference graph it also checks every NPU output,
// element for element, against the reference interpreter.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "systole/compiler/backend.h"
#include "systole/compiler/graph.h"
#include "systole/compiler/host_tensor.h"
#include "systole/isa/config.h"
#include "systole/sim/simulator.h"

namespace systole::hostjit {
class HostJit;
}

namespace systole::runtime {

/// An NPU layer as it ran. Its instructions' counters are the simulator's, attributed by the
/// layer's instruction range; the instructions after a program's last layer (its drain and
/// finish) count for that layer. `attributed_cycles` partitions each program's cycles: a layer
/// owns the cycles from the previous layer's last completion to its own (the first from the
/// program's start, the last to its end), so they sum to the program's cycles.
struct LayerTiming {
  compiler::LayerReport report;
  uint64_t simulated_cycles = 0;   // first start to last end of the layer's instructions
  uint64_t attributed_cycles = 0;  // its share of the program's cycles (above)
  uint64_t start_cycle = 0;        // where that share begins on the model's timeline
  size_t program = 0;              // which NPU program (0-based, in schedule order)
  sim::Counters counters;
};

/// A host operator as it ran, on the model's timeline.
struct HostStep {
  std::string name, op;
  int64_t macs = 0;
  uint64_t cycles = 0;  // the config's host model (host_cost.h)
  uint64_t start_cycle = 0;
  size_t after_layers = 0;  // how many NPU layers ran before it (places it among RunResult::layers)
};

/// Compiling the host operators (hostjit::CompileReport, without LLVM in this header).
struct HostJitReport {
  size_t compiled = 0;  // host nodes with native code
  double seconds = 0;   // building IR and compiling it (or loading it from the cache)
  bool cache_hit = false;
  std::string cache_entry;  // the object file read or written
  std::string warning;
};

/// The first element where the NPU and the reference disagree.
struct Mismatch {
  std::string tensor;
  std::vector<int64_t> index;  // in the graph's (NCHW) coordinates
  int npu = 0, reference = 0;
  int64_t instruction = -1;  // the last store that wrote the element, or -1
  std::string disassembly, layer;

  std::string describe() const;
};

struct RunOptions {
  bool check = false;  // compare with the reference interpreter (needs the quantized graph)
  bool timing_only = false;
  bool races = false;  // fail a program whose scratchpad/accumulator accesses tokens do not order (sim/race_check.h)
  bool trace = false;  // RunResult::trace_json: the whole model on one timeline
  /// Host operators as native code compiled with LLVM (hostjit/; bit for bit the interpreter's
  /// results), compiled at the session's first run; false: all in the interpreter's kernels.
  bool host_jit = true;
  std::string host_jit_cache_dir;  // where compiled host code is kept (compiler::defaultCacheDir()); empty: nowhere
  sim::TraceLevel trace_level = sim::TraceLevel::Instructions;
  /// Called after each NPU program is simulated, with its input tensors and its result (its
  /// timeline recorded): e.g. to run the same program on the RTL NPU and compare.
  std::function<void(const isa::Program&, const std::map<std::string, std::vector<uint8_t>>& inputs,
                     const sim::SimResult&)>
      after_program;
  /// Called before each step of the schedule: steps done, steps in all, what runs next.
  std::function<void(size_t done, size_t total, const std::string& next)> progress;
};

struct RunResult {
  std::map<std::string, compiler::HostTensor> outputs;      // float, by graph output name
  std::map<std::string, compiler::HostTensor> npu_outputs;  // int8 NCHW, by value name
  sim::SimResult sim;                                       // statistics summed over the programs; outputs of the last
  size_t programs = 0;                    // NPU programs run (more than one when host operators sit between)
  size_t host_operators = 0;              // operators run on the host
  uint64_t host_cycles = 0;               // their cost by the config's host model (host_cost.h)
  int64_t host_macs = 0;                  // multiply-accumulates the host operators do
  uint64_t transfer_cycles = 0;           // moving each program's inputs and outputs between host and NPU
  size_t host_jit_runs = 0;               // host operator runs as JIT-compiled code
  size_t host_interpreted_runs = 0;       // host operator runs in the interpreter's kernels
  double host_seconds = 0;                // wall time of the host operators (this process, not the model)
  std::optional<HostJitReport> host_jit;  // set when this run compiled (or loaded) the host code
  uint64_t totalCycles() const { return sim.stats.cycles + host_cycles + transfer_cycles; }
  std::vector<LayerTiming> layers;   // NPU layers, in schedule order
  std::vector<HostStep> host_steps;  // host operators, in schedule order
  std::string trace_json;            // with RunOptions::trace
  std::optional<Mismatch> mismatch;  // set when a check failed
  bool checked = false;
};

class Session {
 public:
  ~Session();
  /// `quantized` is the graph the model was lowered from; the session keeps a reference to it.
  Session(const isa::IsaConfig& isa, compiler::CompiledModel model, const compiler::Graph& quantized);
  /// A single program (lowerToProgram): the host runs the graph's QuantizeLinear and
  /// DequantizeLinear nodes around it.
  Session(const isa::IsaConfig& isa, compiler::CompiledProgram program, const compiler::Graph& quantized);

  /// Float inputs by graph-input name (NCHW as the model declares them).
  RunResult run(const std::map<std::string, compiler::HostTensor>& inputs, const RunOptions& options = {});

  const compiler::CompiledModel& model() const { return model_; }

 private:
  /// The host code, compiled on the first call (which records its report in `result`).
  const hostjit::HostJit* hostCode(const RunOptions& options, RunResult& result);

  const isa::IsaConfig& isa_;
  compiler::CompiledModel model_;
  const compiler::Graph& graph_;
  sim::Simulator simulator_;
  std::shared_ptr<const hostjit::HostJit> jit_;  // compiled at the first run that wants it
  bool jitFailed_ = false;                       // LLVM failed once: interpret from then on
};

/// Seeded random float inputs for every graph input of `g` (uniform in [-1, 1]).
std::map<std::string, compiler::HostTensor> randomInputs(const compiler::Graph& g, uint64_t seed);
/// Every model input, zero (what a timing-only run, which reads no data, is given).
std::map<std::string, compiler::HostTensor> zeroInputs(const compiler::Graph& g);

}  // namespace systole::runtime
