// systole run: compiles an ONNX model with the compiler's stage list (compiler::runPipeline, the
// same stages, options and defaults as `systole compile` and the C++ API; pipeline_options.h),
// runs every NPU program on the simulator and the host operators between them with the
// interpreter's kernels, and reports cycles, utilization, where the cycles went per layer, and
// with --check whether every NPU output equals the reference interpreter bit for bit.
// `--emit=STAGE` prints that stage's text (to -o FILE or stdout) and stops before simulating.
// --seed seeds the run's random inputs only; calibration has its own fixed seed.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "pipeline_options.h"
#include "systole/isa/file_io.h"
#include "systole/runtime/session.h"
#include "tensor_io.h"

namespace systole::tools {

namespace {

struct RunArgs {
  PipelineArgs compile;
  std::string output, outputDir, stats, trace;
  std::vector<std::string> inputs;
  bool check = false, checkIntermediates = false, layers = false, timingOnly = false;
  uint64_t seed = 1;
};

void printLayers(const std::vector<runtime::LayerTiming>& layers, int64_t pes) {
  std::printf("%-28s %-18s %12s %12s %12s %8s\n", "layer", "op", "MACs", "predicted", "simulated", "util");
  int64_t predicted = 0, simulated = 0, roofline = 0;
  for (const auto& l : layers) {
    const double util = l.simulated_cycles ? static_cast<double>(l.report.macs) / (static_cast<double>(l.simulated_cycles) * static_cast<double>(pes)) : 0.0;
    std::printf("%-28.28s %-18.18s %12lld %12lld %12llu %7.1f%%\n", l.report.name.c_str(), l.report.op.c_str(),
                static_cast<long long>(l.report.macs), static_cast<long long>(l.report.predicted_cycles),
                static_cast<unsigned long long>(l.simulated_cycles), 100.0 * util);
    predicted += l.report.predicted_cycles;
    simulated += static_cast<int64_t>(l.simulated_cycles);
    roofline += l.report.roofline_cycles;
  }
  int64_t macs = 0;
  for (const auto& l : layers) macs += l.report.macs;
  std::printf("%-28s %-18s %12lld %12lld %12lld   (roofline bound %lld)\n", "total", "", static_cast<long long>(macs),
              static_cast<long long>(predicted), static_cast<long long>(simulated), static_cast<long long>(roofline));
  std::printf("model MAC utilization: %.1f%% (model MACs / (layer cycles x %lld PEs))\n",
              simulated ? 100.0 * static_cast<double>(macs) / (static_cast<double>(simulated) * static_cast<double>(pes)) : 0.0,
              static_cast<long long>(pes));
}

/// Seeded random values for every model input, replaced by the NAME=FILE.npy the user gave.
compiler::TensorMap modelInputs(const compiler::Graph& g, const RunArgs& a) {
  auto inputs = runtime::randomInputs(g, a.seed);
  for (const auto& arg : a.inputs) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) throw Error("--input expects NAME=FILE.npy, got '" + arg + "'");
    const std::string name = arg.substr(0, eq);
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error("--input " + name + ": the model has no input named '" + name + "'");
    NpyArray npy = readNpy(arg.substr(eq + 1));
    if (npy.dtype != isa::DType::Float32 || npy.shape != it->second.shape)
      throw Error(SourceLocation{arg.substr(eq + 1), 0, 0}, "input '" + name + "' must be float32 with the model's shape");
    it->second.bytes = std::move(npy.bytes);
  }
  return inputs;
}

void writeResults(const runtime::RunResult& result, const RunArgs& a) {
  if (!a.stats.empty()) writeFileAtomic(a.stats, result.sim.stats.toJson());
  if (!a.trace.empty()) writeFileAtomic(a.trace, result.sim.trace_json);
  if (a.outputDir.empty()) return;
  std::vector<std::pair<isa::TensorInfo, std::vector<uint8_t>>> outs;
  for (const auto& [name, t] : result.outputs)
    outs.emplace_back(isa::TensorInfo{name, isa::TensorKind::Output, isa::DType::Float32, t.shape, 0, 1.0f, 0}, t.bytes);
  writeOutputs(a.outputDir, outs);
}

/// "import 0.01, opt 0.002, ..." over the stages that ran and did work.
std::string stageTimes(const compiler::PipelineResult& compiled) {
  std::string out;
  for (const auto& [name, seconds] : compiled.seconds)
    if (compiler::findStage(name)->run) out += (out.empty() ? "" : ", ") + name + " " + std::to_string(seconds);
  return out;
}

void printSummary(const compiler::PipelineResult& compiled, const runtime::RunResult& result, const isa::IsaConfig& config,
                  const RunArgs& a, double runSeconds) {
  size_t instructions = 0, layers = 0;
  for (const auto& item : compiled.compiled->schedule)
    if (item.npu) {
      instructions += item.npu->program.instructionCount();
      layers += item.npu->layers.size();
    }
  std::cout << a.compile.model << " on ISA '" << config.params().name << "': " << result.programs << " NPU program(s), "
            << instructions << " instructions, " << layers << " NPU layers, " << result.host_operators << " host operators; compiled in "
            << compiled.totalSeconds() << " s (" << stageTimes(compiled) << "), run in " << runSeconds << " s"
            << (a.check ? " including the reference check" : "") << "\n";
  std::cout << result.sim.stats.summary();
  if (a.layers) printLayers(result.layers, config.params().array_rows * config.params().array_cols);
}

int run(RunArgs& a) {
  const auto config = loadConfig(a.compile.isa);
  auto options = pipelineOptions(a.compile, config);
  options.lower.keep_intermediates = a.checkIntermediates;
  if (!a.compile.emit.empty()) {
    writeStageText(compiler::runPipeline(a.compile.model, config, options, a.compile.emit), config, a.output);
    return kOk;
  }
  if (a.checkIntermediates) a.check = true;
  auto compiled = compiler::runPipeline(a.compile.model, config, options);
  runtime::Session session(config, *compiled.compiled, compiled.graph);
  runtime::RunOptions runOptions;
  runOptions.check = a.check;
  runOptions.timing_only = a.timingOnly;
  runOptions.trace = !a.trace.empty();
  const auto start = std::chrono::steady_clock::now();
  const auto result = session.run(modelInputs(compiled.graph, a), runOptions);
  const double runSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writeResults(result, a);
  printSummary(compiled, result, config, a, runSeconds);
  if (!a.check) return kOk;
  if (result.mismatch) {
    std::cerr << a.compile.model << ": error: check failed: " << result.mismatch->describe() << "\n";
    return kCheckFailed;
  }
  std::cout << "check: every NPU output equals the reference interpreter bit for bit\n";
  return kOk;
}

}  // namespace

void registerRun(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  static RunArgs a;
  auto* cmd = app.add_subcommand("run", "Compile an ONNX model for a config, simulate it and report cycles (exit 1 if --check fails)");
  CLI::Option* emit = addPipelineOptions(*cmd, a.compile);
  cmd->add_option("-o,--output", a.output, "with --emit: write the stage's text here instead of stdout")->needs(emit);
  cmd->add_option("--input", a.inputs, "NAME=FILE.npy for a float32 model input (others get seeded random values)");
  cmd->add_option("--seed", a.seed, "seed for random model inputs (not for calibration)")->default_val(1);
  cmd->add_option("--output-dir", a.outputDir, "write each model output as DIR/NAME.npy");
  cmd->add_option("--stats", a.stats, "write simulator statistics as JSON");
  cmd->add_option("--trace", a.trace, "write a Chrome/Perfetto trace-event JSON timeline");
  cmd->add_flag("--check", a.check, "compare every NPU output with the reference interpreter, bit for bit");
  cmd->add_flag("--check-intermediates", a.checkIntermediates,
                "keep every NPU value in DRAM and check them all in order, to find the first that differs");
  cmd->add_flag("--layers", a.layers, "print predicted and simulated cycles per layer");
  cmd->add_flag("--timing-only", a.timingOnly, "cycles and statistics only, no data computed");
  actions.emplace_back(cmd, [] { return run(a); });
}

}  // namespace systole::tools
