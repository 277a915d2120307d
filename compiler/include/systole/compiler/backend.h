// The back end: lowers a quantized graph's NPU part to programs for one ISA config. Partitioning
// reads the operator registry; each NPU segment then goes through the plan passes over the
// tile-plan IR (tiling -> memory planning -> scheduling -> emission; compiler/src/backend/), all
// reading the config: capacities, operand field limits and timing expressions.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "systole/compiler/graph.h"
#include "systole/isa/program.h"

namespace systole::compiler {

/// One lowered operator: its instructions, work and the compiler's prediction of its cycles.
struct LayerReport {
  std::string name, op;
  std::string output;                                   // the graph value the layer computes
  uint32_t first_instruction = 0, end_instruction = 0;  // [first, end) in the program
  int64_t macs = 0;
  int64_t min_dram_bytes = 0;    // weights + inputs + outputs, each moved once
  int64_t predicted_cycles = 0;  // the cost model: the busiest queue's summed timing expressions
  int64_t roofline_cycles = 0;   // max(macs / PEs, min_dram_bytes / dram.bytes_per_cycle)
};

/// A layer's roofline: its cycles if only the array (macs / PEs) or only its minimum DRAM traffic
/// (min_dram_bytes / dram.bytes_per_cycle) limited it; LayerReport::roofline_cycles is the larger.
struct Roofline {
  double compute_cycles = 0, memory_cycles = 0;
  bool memoryBound() const { return memory_cycles > compute_cycles; }
  int64_t boundCycles() const;
};
Roofline roofline(const isa::Params& p, int64_t macs, int64_t min_dram_bytes);

/// How a program tensor relates to a graph value: NPU tensors are NHWC in DRAM.
struct BoundaryTensor {
  std::string value;                 // graph value name
  std::vector<int64_t> graph_shape;  // as in the graph (NCHW)
  bool nhwc = false;                 // the program stores it transposed to NHWC
  int64_t halo = 0;                  // NHWC with this many padding pixels on each side
};

struct LowerOptions {
  /// A run of NPU operators with fewer multiply-accumulates than this stays on the host.
  int64_t min_npu_macs = 0;
  /// Keep every NPU value in its own DRAM buffer and list it in the tensor table (kind
  /// intermediate), so a check can find the first value that differs.
  bool keep_intermediates = false;
  /// Back-end passes (names from backendPasses()) after which each program's plan is printed
  /// into CompiledProgram::printed.
  std::vector<std::string> print_after;
};

/// The back end's printable passes, in order: "tiles", "memory", "schedule".
std::span<const std::string_view> backendPasses();

struct CompiledProgram {
  isa::Program program;
  std::vector<LayerReport> layers;
  std::vector<BoundaryTensor> inputs, outputs;
  std::vector<BoundaryTensor> intermediates;                   // with LowerOptions::keep_intermediates, in order
  int64_t dram_constant_bytes = 0, dram_activation_bytes = 0;  // peak activation footprint
  int64_t spad_rows_used = 0, acc_rows_used = 0;
  int64_t chunk_rows = 0;                      // activation rows per tile (the main tiling parameter)
  std::map<std::string, std::string> printed;  // the plan after each pass of LowerOptions::print_after
};

/// A whole model: NPU programs for the maximal runs of operators the NPU can run, and the host
/// operators (by node id) between them, in execution order.
struct ScheduleItem {
  int host_node = -1;                  // a node the runtime runs with the interpreter's kernels
  std::string host_reason;             // why it is not on the NPU ("" for QuantizeLinear/DequantizeLinear)
  std::optional<CompiledProgram> npu;  // or an NPU program
};

struct CompiledModel {
  std::vector<ScheduleItem> schedule;
  size_t programCount() const;
};

/// The runs of nodes the config's NPU can run (each operator needs an instruction for every
/// semantics class its lowering selects), in topological order; each run becomes one program.
std::vector<std::vector<int>> partition(const Graph& quantized, const isa::IsaConfig& isa,
                                        const LowerOptions& options = {});

/// Throws Error unless the compiler can target the config: int16 activations need an int32
/// accumulator (the accumulator-aware weight scales assume int8 activations).
void checkCompilerTarget(const isa::Params& p);

/// Lowers every NPU run of the quantized graph and schedules the host operators between them.
CompiledModel compileModel(const Graph& quantized, const isa::IsaConfig& isa, const LowerOptions& options = {});

/// Lowers one run of nodes into a program whose tensor table holds the run's inputs and outputs.
CompiledProgram lowerSegment(const Graph& quantized, const isa::IsaConfig& isa, const std::vector<int>& nodes,
                             const LowerOptions& options = {});

/// For graphs whose only host operators are the QuantizeLinear at the inputs and the
/// DequantizeLinear at the outputs: the one program. Throws systole::Error naming the node, its op
/// and the reason for anything it cannot lower.
CompiledProgram lowerToProgram(const Graph& quantized, const isa::IsaConfig& isa, const LowerOptions& options = {});

}  // namespace systole::compiler
