// The back end's driver: partition the quantized graph, run the plan passes on each NPU segment
// (tiling -> memory planning -> scheduling -> emission, printing the plan after the passes the
// options name) and put the host operators between the programs.
#include "backend_passes.h"
#include "operator_registry.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

std::span<const std::string_view> backendPasses() {
  static constexpr std::string_view kPasses[] = {"tiles", "memory", "schedule"};
  return kPasses;
}

CompiledProgram lowerSegment(const Graph& g, const isa::IsaConfig& isa, const std::vector<int>& order,
                             const LowerOptions& options) {
  std::map<std::string, std::string> printed;
  auto after = [&](std::string_view pass, const TilePlan& plan) {
    for (const auto& name : options.print_after)
      if (name == pass) printed[name] = printPlan(isa, g, plan);
  };
  TilePlan plan = tileSegment(g, isa, order, options);
  after("tiles", plan);
  planMemory(isa, plan);
  after("memory", plan);
  schedulePlan(plan);
  after("schedule", plan);
  CompiledProgram program = emitProgram(g, isa, plan);
  program.printed = std::move(printed);
  return program;
}

namespace {

/// Why a node runs on the host: the registry's reason, or that its run of NPU operators had too
/// little work (--min-npu-macs). The edges of the quantized graph need no reason.
std::string hostReason(const Graph& g, const Node& n, const isa::IsaConfig& isa) {
  if (n.op == Op::QuantizeLinear || n.op == Op::DequantizeLinear) return "";
  const std::string why = npuIneligibility(g, n, isa);
  return why.empty() ? "its run of NPU operators has fewer MACs than --min-npu-macs" : why;
}

}  // namespace

void checkCompilerTarget(const isa::Params& p) {
  if (p.act_bits != 8 && p.acc_bits != 32)
    throw Error("ISA '" + p.name + "' has types.activation int" + std::to_string(p.act_bits) +
                " and types.accumulator int" + std::to_string(p.acc_bits) +
                ": the compiler fits weight scales to a narrow accumulator for int8 activations only (compile int16 "
                "activations with an int32 accumulator)");
}

CompiledModel compileModel(const Graph& g, const isa::IsaConfig& isa, const LowerOptions& options) {
  checkCompilerTarget(isa.params());
  CompiledModel model;
  const auto segments = partition(g, isa, options);
  std::vector<int> segmentOf(g.nodes.size(), -1);
  for (size_t s = 0; s < segments.size(); ++s)
    for (int id : segments[s]) segmentOf[static_cast<size_t>(id)] = static_cast<int>(s);
  int emitted = -1;
  for (int id : g.topoOrder()) {
    const int s = segmentOf[static_cast<size_t>(id)];
    if (s < 0) {
      model.schedule.push_back({id, hostReason(g, g.nodes[static_cast<size_t>(id)], isa), std::nullopt});
    } else if (s != emitted) {
      model.schedule.push_back({-1, "", lowerSegment(g, isa, segments[static_cast<size_t>(s)], options)});
      emitted = s;
    }
  }
  return model;
}

CompiledProgram lowerToProgram(const Graph& g, const isa::IsaConfig& isa, const LowerOptions& options) {
  CompiledModel model = compileModel(g, isa, options);
  std::optional<CompiledProgram> only;
  for (auto& item : model.schedule) {
    if (item.npu) {
      if (only)
        throw Error("the model needs " + std::to_string(model.programCount()) +
                    " NPU programs with host operators between them; a single program cannot hold it");
      only = std::move(item.npu);
      continue;
    }
    const Node& n = g.nodes[static_cast<size_t>(item.host_node)];
    if (n.op != Op::QuantizeLinear && n.op != Op::DequantizeLinear)
      throw Error("node '" + n.name + "' (" + n.op +
                  ") runs on the host between NPU operators: " + npuIneligibility(g, n, isa));
  }
  if (!only) throw Error("the graph has no quantized operator the NPU can run (run quantization first)");
  return std::move(*only);
}

size_t CompiledModel::programCount() const {
  size_t n = 0;
  for (const auto& item : schedule) n += item.npu.has_value();
  return n;
}

}  // namespace systole::compiler
