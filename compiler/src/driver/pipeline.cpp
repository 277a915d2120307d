#include "systole/compiler/pipeline.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "systole/compiler/onnx_import.h"
#include "systole/isa/assembler.h"
#include "systole/isa/diagnostic.h"

namespace systole::compiler {

namespace {

// ---- What each stage runs ----------------------------------------------------------------------

void runImport(PipelineResult& r, const isa::IsaConfig&, const PipelineOptions& options) {
  r.graph = importOnnx(r.model_path, options.import);
}

void runOptimize(PipelineResult& r, const isa::IsaConfig&, const PipelineOptions& options) {
  PassOptions passOptions;
  if (options.verify_each) passOptions.verify = true;
  passOptions.afterPass = options.after_pass;
  runPasses(r.graph, options.passes.empty() ? defaultPipeline() : options.passes, passOptions);
}

std::vector<TensorMap> calibrationInputs(const Graph& g, const PipelineOptions& options) {
  if (!options.calibration_arrays.empty()) {
    auto samples = calibrationSamples(g, options.calibration_arrays, "calibration arrays");
    if (samples.empty()) throw Error("the calibration arrays hold no sample");
    return samples;
  }
  if (!options.calibration_dir.empty()) return loadCalibrationDir(g, options.calibration_dir);
  const int count = options.quant.num_samples > 0 ? options.quant.num_samples : kDefaultCalibrationSamples;
  return makeRandomInputs(g, count, options.calibration_seed);
}

/// The quantizer's options with the weight widths --precision asks for, checked against what the
/// config's types.weight offers.
QuantOptions quantOptions(const isa::IsaConfig& isa, const PipelineOptions& options) {
  QuantOptions q = options.quant;
  const isa::Params& p = isa.params();
  checkCompilerTarget(p);
  q.accumulator_bits = p.acc_bits;
  q.activation_bits = p.act_bits;
  if (options.precision == "auto") {
    q.search_widths = p.weight_bits;
    q.min_cosine = options.min_cosine;
    return q;
  }
  int bits = p.weight_bits.front();
  if (!options.precision.empty()) {
    bits = isa::weightTypeBits(options.precision);
    if (bits == 0) throw Error("--precision must be int8, int4 or auto, got '" + options.precision + "'");
    if (!p.offersWeightBits(bits))
      throw Error("--precision " + options.precision + ": ISA '" + p.name +
                  "' does not offer it (types.weight; int4 needs a dma_load_int4 instruction)");
  }
  q.weights.bits = bits;
  return q;
}

void runQuantize(PipelineResult& r, const isa::IsaConfig& isa, const PipelineOptions& options) {
  const QuantOptions quant = quantOptions(isa, options);
  const auto samples = calibrationInputs(r.graph, options);
  const size_t wanted = static_cast<size_t>(std::max(0, options.quant.num_samples));
  r.calibration_samples = wanted > 0 ? std::min(samples.size(), wanted) : samples.size();
  if (options.keep_float_graph) r.float_graph = r.graph;
  r.quant = quantize(r.graph, samples, quant);
}

/// Partitions and runs every back-end pass; the plan is kept as text after the passes whose
/// stages will be printed (the target stage, or all with print_after).
void runLower(PipelineResult& r, const isa::IsaConfig& isa, const PipelineOptions& options) {
  LowerOptions lower = options.lower;
  for (std::string_view pass : backendPasses())
    if (pass == r.target_stage) lower.print_after.emplace_back(pass);
  r.compiled = compileModel(r.graph, isa, lower);
}

// ---- How each stage prints its result ----------------------------------------------------------

std::string printGraph(const PipelineResult& r, const isa::IsaConfig&) { return r.graph.print(); }

/// Each NPU program's text in order, under `header K` when there is more than one program.
std::string eachProgram(const PipelineResult& r, const std::string& header,
                        const std::function<std::string(const CompiledProgram&)>& text) {
  std::ostringstream out;
  const bool several = r.compiled->programCount() > 1;
  size_t k = 0;
  for (const auto& item : r.compiled->schedule) {
    if (!item.npu) continue;
    if (several) out << header << " " << k << "\n";
    out << text(*item.npu);
    ++k;
  }
  return out.str();
}

/// The tile plan after back-end pass `pass`, then the cost model's report of each layer.
std::string printPlan(const PipelineResult& r, std::string_view pass) {
  return eachProgram(r, "// program", [pass](const CompiledProgram& c) {
    std::ostringstream out;
    auto plan = c.printed.find(std::string(pass));
    if (plan != c.printed.end()) out << plan->second;
    for (const auto& l : c.layers)
      out << "report " << l.name << " (" << l.op << "): instructions [" << l.first_instruction << ", "
          << l.end_instruction << "), " << l.macs << " MACs, predicted " << l.predicted_cycles << " cycles, roofline "
          << l.roofline_cycles << "\n";
    return out.str();
  });
}

std::string printTiles(const PipelineResult& r, const isa::IsaConfig&) { return printPlan(r, "tiles"); }
std::string printMemory(const PipelineResult& r, const isa::IsaConfig&) { return printPlan(r, "memory"); }
std::string printSchedule(const PipelineResult& r, const isa::IsaConfig&) { return printPlan(r, "schedule"); }

std::string printAsm(const PipelineResult& r, const isa::IsaConfig& isa) {
  return eachProgram(r, "# program", [&isa](const CompiledProgram& c) { return isa::disassemble(isa, c.program); });
}

// ---- The stage table ---------------------------------------------------------------------------
// In order. A new stage (say a back-end pass between tiles and asm) is one row: its run advances
// PipelineResult (add a field there for its IR), its text prints that for --emit; the commands'
// --emit choices and help, --time-passes and runPipeline all read this table.

const std::vector<StageInfo>& stages() {
  static const std::vector<StageInfo> table = {
      {"graph", "the graph IR as imported from ONNX", "import", runImport, printGraph},
      {"opt", "the graph after the optimization passes", "optimization (total)", runOptimize, printGraph},
      {"quant", "the int8 graph after calibration and quantization", "calibration and quantization", runQuantize,
       printGraph},
      {"tiles", "the tile plan after tiling (loop nests, steps, symbolic buffers and slots, cycles per step)",
       "lowering", runLower, printTiles},
      {"memory", "the tile plan after memory planning (DRAM addresses, slot rows)", "", nullptr, printMemory},
      {"schedule", "the tile plan after scheduling (dependency tokens, barriers)", "", nullptr, printSchedule},
      {"asm", "the NPU program as assembly", "", nullptr, printAsm},
  };
  return table;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Runs one stage, timing it; an error without a location is reported against the model.
void runStage(const StageInfo& stage, PipelineResult& r, const isa::IsaConfig& isa, const PipelineOptions& options) {
  if (stage.run && options.before_stage) options.before_stage(stage);
  const auto start = std::chrono::steady_clock::now();
  try {
    if (stage.run) stage.run(r, isa, options);
  } catch (const Error& e) {
    throw inFile(e, r.model_path);
  }
  r.last_stage = stage.name;
  r.seconds.emplace_back(stage.name, secondsSince(start));
  if (options.after_stage) options.after_stage(stage, r, r.seconds.back().second);
}

}  // namespace

const std::vector<StageInfo>& stageTable() { return stages(); }

const StageInfo* findStage(std::string_view name) {
  for (const auto& stage : stages())
    if (stage.name == name) return &stage;
  return nullptr;
}

double PipelineResult::secondsOf(std::string_view stage) const {
  for (const auto& [name, s] : seconds)
    if (name == stage) return s;
  return 0;
}

double PipelineResult::totalSeconds() const {
  double total = 0;
  for (const auto& [stage, s] : seconds) total += s;
  return total;
}

PipelineResult runPipeline(const std::string& modelPath, const isa::IsaConfig& isa, const PipelineOptions& options,
                           std::string_view last) {
  if (!last.empty() && !findStage(last)) throw Error("unknown compiler stage '" + std::string(last) + "'");
  PipelineResult r;
  r.model_path = modelPath;
  r.target_stage = last;
  for (const auto& stage : stages()) {
    runStage(stage, r, isa, options);
    if (stage.name == last) break;
  }
  return r;
}

std::string stageText(const PipelineResult& result, const isa::IsaConfig& isa) {
  const StageInfo* stage = findStage(result.last_stage);
  if (!stage) throw Error("no compiler stage has run");
  return stage->text(result, isa);
}

const CompiledProgram& singleProgram(const PipelineResult& result, const isa::IsaConfig& isa,
                                     const PipelineOptions& options) {
  if (!result.compiled) throw Error("the model has not been lowered (run the pipeline through 'tiles')");
  const CompiledProgram* only = nullptr;
  bool single = true;
  for (const auto& item : result.compiled->schedule) {
    if (item.npu) {
      single = single && !only;
      only = &*item.npu;
      continue;
    }
    const OpType& op = result.graph.nodes[static_cast<size_t>(item.host_node)].op;
    single = single && (op == Op::QuantizeLinear || op == Op::DequantizeLinear);
  }
  if (single && only) return *only;
  // lowerToProgram applies the same rule and names the operator and why it stays on the host; it
  // is called only to report that error, with the same graph, config and options.
  try {
    (void)lowerToProgram(result.graph, isa, options.lower);
  } catch (const Error& e) {
    throw Error(SourceLocation{result.model_path}, e.message());
  }
  throw Error(SourceLocation{result.model_path}, "the model does not compile to a single NPU program");
}

}  // namespace systole::compiler
