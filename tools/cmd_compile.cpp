// systole compile: ONNX model -> graph IR -> optimized graph -> ... Each compiler stage is one
// row of the table below: it transforms the compile state and prints it as text, so
// `--emit=STAGE` stops after any stage and writes what it produced (tests FileCheck those texts).
// Later stages (quant, tiles, asm and the .sbin writer) append rows.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "commands.h"
#include "systole/compiler/backend.h"
#include "systole/compiler/graph.h"
#include "systole/compiler/onnx_import.h"
#include "systole/compiler/passes.h"
#include "systole/compiler/quantize.h"
#include "systole/isa/assembler.h"
#include "systole/isa/file_io.h"

namespace systole::tools {

namespace {

struct CompileArgs {
  std::string model, isa = "default", output, emit, passes;
  bool verifyEach = false, printAfterAll = false, timePasses = false;
  std::string calibDir, calibMethod = "minmax";
  int calibSamples = 0;  // 0: 8 seeded random inputs, or every sample in calibDir
};

struct CompileState {
  const CompileArgs* args = nullptr;
  isa::IsaConfig config;
  compiler::Graph graph;
  size_t importedNodes = 0;
  double importSeconds = 0, optimizeSeconds = 0;
  std::string optimizedSummary;  // the optimized graph's operators and parameters, for the summary line
  std::optional<compiler::QuantSummary> quant;
  size_t calibrationSamples = 0;
  double quantizeSeconds = 0;
  std::optional<compiler::CompiledProgram> compiled;
  double lowerSeconds = 0;
};

struct Stage {
  const char* name;
  const char* help;
  void (*run)(CompileState&);
  std::string (*text)(const CompileState&);  // what --emit=<name> writes
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

size_t liveNodes(const compiler::Graph& g) {
  size_t n = 0;
  for (const auto& node : g.nodes) n += !node.dead;
  return n;
}

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
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

void runImport(CompileState& s) {
  const auto start = std::chrono::steady_clock::now();
  s.graph = compiler::importOnnx(s.args->model);
  s.importSeconds = secondsSince(start);
  if (s.args->timePasses) std::fprintf(stderr, "%-25s %9.3f ms\n", "import", s.importSeconds * 1e3);
  s.importedNodes = liveNodes(s.graph);
}

void runOptimize(CompileState& s) {
  const CompileArgs& a = *s.args;
  compiler::PassOptions options;
  if (a.verifyEach) options.verify = true;
  if (a.printAfterAll || a.timePasses)
    options.afterPass = [&a](const compiler::PassInfo& pass, const compiler::Graph& g, double seconds) {
      if (a.timePasses) std::fprintf(stderr, "pass %-20s %9.3f ms\n", std::string(pass.name).c_str(), seconds * 1e3);
      if (a.printAfterAll) std::cerr << "// after " << pass.name << "\n" << g.print();
    };
  const auto pipeline = a.passes.empty() ? compiler::defaultPipeline() : splitList(a.passes);
  const auto start = std::chrono::steady_clock::now();
  compiler::runPasses(s.graph, pipeline, options);
  s.optimizeSeconds = secondsSince(start);
  if (a.timePasses) std::fprintf(stderr, "%-25s %9.3f ms\n", "optimization (total)", s.optimizeSeconds * 1e3);
  s.optimizedSummary = describeGraph(s.graph);
}

void runQuantize(CompileState& s) {
  const CompileArgs& a = *s.args;
  compiler::QuantOptions options;
  options.method = compiler::parseCalibrationMethod(a.calibMethod).value();  // checked by CLI11
  options.num_samples = a.calibSamples;
  const auto start = std::chrono::steady_clock::now();
  const auto samples = a.calibDir.empty() ? compiler::makeRandomInputs(s.graph, a.calibSamples > 0 ? a.calibSamples : 8)
                                          : compiler::loadCalibrationDir(s.graph, a.calibDir);
  s.calibrationSamples = a.calibSamples > 0 ? std::min(samples.size(), static_cast<size_t>(a.calibSamples)) : samples.size();
  s.quant = compiler::quantize(s.graph, samples, options);
  s.quantizeSeconds = secondsSince(start);
}

void runLower(CompileState& s) {
  const auto start = std::chrono::steady_clock::now();
  compiler::LowerOptions options;
  if (s.args->emit == "tiles") options.print_after = {"tiles"};
  s.compiled = compiler::lowerToProgram(s.graph, s.config, options);
  s.lowerSeconds = secondsSince(start);
}

std::string printGraph(const CompileState& s) { return s.graph.print(); }

std::string printTiles(const CompileState& s) {
  std::ostringstream out;
  out << s.compiled->printed.at("tiles");
  for (const auto& l : s.compiled->layers)
    out << "layer " << l.name << " (" << l.op << "): instructions [" << l.first_instruction << ", " << l.end_instruction
        << "), " << l.macs << " MACs, predicted " << l.predicted_cycles << " cycles, roofline " << l.roofline_cycles << "\n";
  return out.str();
}

std::string printAsm(const CompileState& s) { return isa::disassemble(s.config, s.compiled->program); }

const std::vector<Stage>& stages() {
  static const std::vector<Stage> table = {
      {"graph", "the graph IR as imported from ONNX", runImport, printGraph},
      {"opt", "the graph after the optimization passes", runOptimize, printGraph},
      {"quant", "the int8 graph after calibration and quantization", runQuantize, printGraph},
      {"tiles", "the tiling plan and each layer's instructions and predicted cycles", runLower, printTiles},
      {"asm", "the NPU program as assembly", [](CompileState&) {}, printAsm},
  };
  return table;
}

std::string summary(const CompileState& s) {
  std::ostringstream out;
  out << s.args->model << ": opset " << s.graph.opset << ", " << s.importedNodes << " nodes imported, " << s.optimizedSummary;
  char times[128];
  std::snprintf(times, sizeof times, "; import %.1f ms, optimization %.1f ms", s.importSeconds * 1e3, s.optimizeSeconds * 1e3);
  out << times << "\n";
  if (s.quant) {
    std::snprintf(times, sizeof times, "; calibration and quantization %.1f ms", s.quantizeSeconds * 1e3);
    out << "quantized (" << s.args->calibMethod << ", " << s.calibrationSamples << " calibration samples): "
        << s.quant->quantized_nodes << " int8 operators, " << s.quant->float_nodes << " float on the host, "
        << s.quant->quantize_linear << " QuantizeLinear, " << s.quant->dequantize_linear << " DequantizeLinear, "
        << s.quant->requant << " Requant" << times << "\n";
  }
  if (s.compiled) {
    const auto& c = *s.compiled;
    std::snprintf(times, sizeof times, "; lowering %.1f ms", s.lowerSeconds * 1e3);
    out << "program for ISA '" << s.config.params().name << "': " << c.program.instructionCount() << " instructions, "
        << c.layers.size() << " layers, " << c.dram_constant_bytes << " bytes of constants, " << c.dram_activation_bytes
        << " bytes peak activations in DRAM, tiles of " << c.chunk_rows << " rows" << times << "\n";
  }
  return out.str();
}

}  // namespace

void registerCompile(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  static CompileArgs a;
  std::vector<std::string> stageNames;
  std::string stageHelp = "stop after a stage and write its text:";
  for (const auto& st : stages()) {
    stageNames.emplace_back(st.name);
    stageHelp += std::string(" ") + st.name + " (" + st.help + ");";
  }
  stageHelp.pop_back();
  std::string passHelp = "comma-separated passes instead of the default pipeline:";
  for (const auto& p : compiler::passRegistry()) passHelp += " " + std::string(p.name);

  auto* cmd = app.add_subcommand("compile", "Compile an ONNX model into an NPU program (-o OUT.sbin); print any stage with --emit");
  cmd->add_option("MODEL", a.model, "float32 ONNX model (opset 9 to 17)")->required();
  cmd->add_option("--isa", a.isa, "ISA config (path or shipped name)")->default_val("default");
  cmd->add_option("--emit", a.emit, stageHelp)->check(CLI::IsMember(stageNames));
  cmd->add_option("-o,--output", a.output, "output file (default with --emit: stdout)");
  cmd->add_option("--passes", a.passes, passHelp);
  cmd->add_flag("--verify-each", a.verifyEach, "verify the graph after every pass (always on in debug builds)");
  cmd->add_flag("--print-after-all", a.printAfterAll, "print the graph to stderr after every pass");
  cmd->add_flag("--time-passes", a.timePasses, "print the import's and each pass's time to stderr");
  cmd->add_option("--calib", a.calibDir,
                  "calibration data: a directory of float32 .npy files, one sample each (or INPUT_NAME.npy files in one "
                  "subdirectory per sample); default: seeded random inputs uniform in [-1, 1)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--calib-samples", a.calibSamples,
                  "calibration samples to use (default: 8 random inputs, or every sample of --calib)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--calib-method", a.calibMethod, "how calibration picks each tensor's range")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy"}))
      ->default_val("minmax");
  actions.emplace_back(cmd, [] {
    CompileState s;
    s.args = &a;
    s.config = loadConfig(a.isa);
    const Stage* last = nullptr;
    for (const auto& st : stages()) {
      try {
        st.run(s);
      } catch (const Error& e) {
        if (!e.where().file.empty()) throw;
        throw Error(SourceLocation{a.model}, e.message());
      }
      last = &st;
      if (a.emit == st.name) break;
    }
    if (a.emit.empty()) {
      if (!a.output.empty()) isa::writeSbin(a.output, s.compiled->program);
      std::cout << summary(s);
      return kOk;
    }
    const std::string text = last->text(s);
    if (a.output.empty()) std::cout << text;
    else writeFileAtomic(a.output, text);
    return kOk;
  });
}

}  // namespace systole::tools
