// systole compile: runs the compiler's stage list (compiler::runPipeline: graph -> opt -> quant ->
// tiles -> asm), the same one `systole run` and the C++ API run, with the options every compiling
// command shares (pipeline_options.h). `--emit=STAGE` stops after that stage and writes its text
// (to -o FILE or stdout); otherwise it compiles the whole model, prints a summary line per stage,
// and with -o writes the model's one NPU program as a .sbin (a model with host operators between
// NPU operators needs `systole run`, which executes any schedule).
#include <algorithm>
#include <cmath>
#include <malloc.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "systole/compiler/artifact.h"
#include "pipeline_options.h"
#include "run_report.h"
#include "systole/isa/file_io.h"
#include "systole/isa/program.h"

namespace systole::tools {

namespace {

/// What the summary reports about stages whose result later stages replace.
struct FrontEndSummary {
  size_t importedNodes = 0;
  std::string optimized;  // the optimized graph's operators and parameters
};

size_t liveNodes(const compiler::Graph& g) {
  size_t n = 0;
  for (const auto& node : g.nodes) n += !node.dead;
  return n;
}

/// "N after optimization (Op count ...), P parameters" for the summary line.
std::string describeGraph(const compiler::Graph& g) {
  int64_t parameters = 0;
  std::map<std::string, int> ops;
  const auto users = g.users();
  for (size_t v = 0; v < g.values.size(); ++v)
    if (g.values[v].is_constant && !users[v].empty()) parameters += g.values[v].elements();
  for (const auto& n : g.nodes)
    if (!n.dead) ++ops[n.op];
  std::ostringstream out;
  out << liveNodes(g) << " after optimization (";
  bool first = true;
  for (const auto& [op, count] : ops) {
    out << (first ? "" : " ") << op << " " << count;
    first = false;
  }
  out << "), " << parameters << " parameters";
  return out.str();
}

std::string milliseconds(const char* what, double seconds) {
  char text[96];
  std::snprintf(text, sizeof text, "%s %.1f ms", what, seconds * 1e3);
  return text;
}

std::string frontEndLine(const compiler::PipelineResult& r, const FrontEndSummary& s) {
  return r.model_path + ": opset " + std::to_string(r.graph.opset) + ", " + std::to_string(s.importedNodes) +
         " nodes imported, " + s.optimized + "; " + milliseconds("import", r.secondsOf("graph")) + ", " +
         milliseconds("optimization", r.secondsOf("opt")) + "\n";
}

/// --precision auto: what the search chose, then each layer with its sensitivity (the outputs'
/// cosine with that layer alone narrowed), most sensitive first.
std::string precisionLines(const compiler::PipelineResult& r, const compiler::PipelineOptions& options) {
  const auto& layers = r.quant.layers;
  if (layers.empty()) return "";
  int narrow = 0;
  for (const auto& l : layers) narrow += l.bits < 8 ? 1 : 0;
  std::ostringstream out;
  const auto& q = r.quant;
  out << "precision auto: int4 weights in " << narrow << " of " << layers.size() << " matrix layers, cosine "
      << q.searched_cosine << " against the float model on " << q.search_samples << " calibration samples (target "
      << options.min_cosine << "); ";
  if (q.held_out_samples == 0)
    out << "no calibration sample left to hold out\n";
  else
    out << "cosine " << q.held_out_cosine << " on the " << q.held_out_samples << " held out"
        << (q.held_out_cosine < options.min_cosine ? ", BELOW the target: judge on more (--search-samples)" : "")
        << "\n";
  auto sorted = layers;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.alone_cosine < b.alone_cosine; });
  for (const auto& l : sorted) {
    out << "  int" << l.bits << "  " << l.layer;
    if (!std::isnan(l.alone_cosine)) out << "  (cosine " << l.alone_cosine << " with it alone narrowed)";
    out << "\n";
  }
  return out.str();
}

std::string quantLine(const compiler::PipelineResult& r, const compiler::PipelineOptions& options) {
  std::ostringstream out;
  const auto& q = r.quant;
  out << "quantized (" << compiler::calibrationMethodName(options.quant.method) << ", " << r.calibration_samples
      << " calibration samples): " << q.quantized_nodes << " int8 operators, " << q.float_nodes
      << " float on the host, " << q.quantize_linear << " QuantizeLinear, " << q.dequantize_linear
      << " DequantizeLinear, " << q.requant << " Requant; "
      << milliseconds("calibration and quantization", r.secondsOf("quant")) << "\n";
  if (options.quant.smoothing > 0)
    out << "smoothing (alpha " << options.quant.smoothing << "): " << q.smoothed_norms
        << " LayerNormalization outputs divided, the weight rows of " << q.smoothed_layers
        << " matrix layers reading them scaled\n";
  out << equalizationLine(r.graph);
  out << precisionLines(r, options) << accumulatorFitLine(r.graph);
  return out.str();
}

std::string programLine(const std::string& title, const compiler::CompiledProgram& c) {
  std::ostringstream out;
  out << title << ": " << c.program.instructionCount() << " instructions, " << c.layers.size() << " layers, "
      << c.dram_constant_bytes << " bytes of constants, " << c.dram_activation_bytes
      << " bytes peak activations in DRAM, tiles of " << c.chunk_rows << " rows";
  return out.str();
}

/// One line per NPU program; with other than one program, first a line counting them.
std::string programLines(const compiler::PipelineResult& r, const isa::IsaConfig& isa) {
  const auto& model = *r.compiled;
  const std::string isaName = "ISA '" + isa.params().name + "'";
  const double backEnd = r.totalSeconds() - r.secondsOf("graph") - r.secondsOf("opt") - r.secondsOf("quant");
  const std::string lowering = "; " + milliseconds("lowering", backEnd) + "\n";
  std::ostringstream out;
  if (model.programCount() != 1)
    out << model.programCount() << " NPU programs for " << isaName << ", "
        << model.schedule.size() - model.programCount() << " host operators" << lowering;
  size_t k = 0;
  for (const auto& item : model.schedule) {
    if (!item.npu) continue;
    if (model.programCount() == 1)
      out << programLine("program for " + isaName, *item.npu) << lowering;
    else
      out << programLine("program " + std::to_string(k), *item.npu) << "\n";
    ++k;
  }
  return out.str();
}

int compile(const PipelineArgs& a, const std::string& output) {
  // A fixed mmap threshold: glibc otherwise raises it after the first big free, and the model's
  // freed weight-sized buffers then stay in the heap (ResNet-50's peak RSS 343 -> 297 MB). At 16 MiB
  // calibration's activation and im2col buffers are reused from the heap instead of being mapped
  // and unmapped per operator (at 128 KiB page faults cost ResNet-50 0.6 s of system time; peak
  // RSS unchanged, VGG-11's 990 -> 1012 MB). Not for `run`, whose simulation is about 7% slower with it.
  mallopt(M_MMAP_THRESHOLD, 16 * 1024 * 1024);
  const auto config = loadConfig(a.isa);
  auto options = pipelineOptions(a, config);
  options.keep_float_graph = false;  // nothing here compares with the float model
  if (!a.emit.empty()) {
    writeStageText(compiler::runPipeline(a.model, config, options, a.emit), config, output);
    return kOk;
  }
  FrontEndSummary s;
  options.after_stage = [timing = options.after_stage, &s](const compiler::StageInfo& stage,
                                                           const compiler::PipelineResult& r, double seconds) {
    if (timing) timing(stage, r, seconds);
    if (stage.name == "graph") s.importedNodes = liveNodes(r.graph);
    if (stage.name == "opt") s.optimized = describeGraph(r.graph);
  };
  const auto r = compiler::runPipeline(a.model, config, options);
  malloc_trim(0);  // the tile plan's many small blocks are free now: return their pages before writing
  if (!output.empty()) compiler::writeArtifact(output, config, r.graph, *r.compiled);
  std::cout << frontEndLine(r, s) << quantLine(r, options) << programLines(r, config);
  return kOk;
}

}  // namespace

void registerCompile(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  static PipelineArgs a;
  static std::string output;
  auto* cmd = app.add_subcommand("compile",
                                 "Compile an ONNX model into one artifact (-o OUT.sbin: every NPU program and the host "
                                 "steps); print any stage with --emit");
  addPipelineOptions(*cmd, a);
  cmd->add_option("--min-cosine", a.minCosine, "--precision auto's target: the outputs' cosine against the float model")
      ->default_val(a.minCosine);
  cmd->add_option("-o,--output", output, "the .sbin to write; with --emit, the stage's text (default: stdout)");
  actions.emplace_back(cmd, [] { return compile(a, output); });
}

}  // namespace systole::tools
