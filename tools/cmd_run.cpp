// systole run: compiles an ONNX model with the compiler's stage list (compiler::runPipeline, the
// same stages, options and defaults as `systole compile` and the C++ API; pipeline_options.h),
// runs every NPU program on the simulator and the host operators between them as native code
// compiled by the host JIT (hostjit/; --host-jit=off: the interpreter's kernels), and reports cycles, utilization, the
// host operators, where the cycles went per layer, the accuracy of the INT8 model against the float model on the same
// inputs (every run; --min-sqnr/--min-cosine make it a check), and with --check whether every NPU output equals the
// reference interpreter bit for bit.
// `--emit=STAGE` prints that stage's text (to -o FILE or stdout) and stops before simulating.
// --seed seeds the run's random inputs only; calibration has its own fixed seed.
// An ONNX model's compiled artifact is kept in the compile cache (compile_cache.h) and reused by
// the next run with the same model, config and options; --no-cache skips it.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "pipeline_options.h"
#include "progress.h"
#include "rtl_npu_check.h"
#include "run_report.h"
#include "systole/compiler/artifact.h"
#include "systole/compiler/compile_cache.h"
#include "systole/isa/file_io.h"
#include "systole/isa/shipped_configs.h"
#include "systole/runtime/session.h"
#include "systole/sim/energy.h"
#include "tensor_io.h"

namespace systole::tools {

namespace {

struct RunArgs {
  PipelineArgs compile;
  std::string output, outputDir, floatOutputDir, stats, statsCsv, trace, traceLevel = "instructions";
  std::vector<std::string> inputs;
  bool check = false, checkIntermediates = false, layers = false, timingOnly = false, races = false, noCache = false;
  std::string hostJit = "on", rtl;
  uint64_t seed = 1;
  double minSqnr = std::nan(""), minCosine = std::nan("");
};

/// Seeded random values for every model input, replaced by the NAME=FILE.npy the user gave.
compiler::TensorMap modelInputs(const compiler::Graph& g, const RunArgs& a) {
  auto inputs = a.timingOnly ? runtime::zeroInputs(g) : runtime::randomInputs(g, a.seed);
  for (const auto& arg : a.inputs) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) throw Error("--input expects NAME=FILE.npy, got '" + arg + "'");
    const std::string name = arg.substr(0, eq);
    auto it = inputs.find(name);
    if (it == inputs.end()) throw Error("--input " + name + ": the model has no input named '" + name + "'");
    NpyArray npy = readNpy(arg.substr(eq + 1));
    if (npy.dtype != isa::DType::Float32 || npy.shape != it->second.shape)
      throw Error(SourceLocation{arg.substr(eq + 1), 0, 0},
                  "input '" + name + "' must be float32 with the model's shape");
    it->second.bytes = std::move(npy.bytes);
  }
  return inputs;
}

/// Wall-clock seconds of this process's work (not simulated time).
struct WallTime {
  double compile = 0, run = 0;
};

/// Float tensors as DIR/NAME.npy (--output-dir's naming).
void writeFloatTensors(const std::string& dir, const std::map<std::string, compiler::HostTensor>& tensors) {
  std::vector<std::pair<isa::TensorInfo, std::vector<uint8_t>>> outs;
  for (const auto& [name, t] : tensors)
    outs.emplace_back(isa::TensorInfo{name, isa::TensorKind::Output, isa::DType::Float32, t.shape, 0, 1.0f, 0},
                      t.bytes);
  writeOutputs(dir, outs);
}

void writeResults(const runtime::RunResult& result, const Accuracy& accuracy, const RunArgs& a, const isa::Params& p,
                  WallTime wall) {
  if (!a.stats.empty() || !a.statsCsv.empty()) {
    auto document = statsJson(result, accuracy, p);
    document["wall_seconds"] = {{"compile", wall.compile},
                                {"run", wall.run},
                                {"host", result.host_seconds},
                                {"host_jit_compile", result.host_jit ? result.host_jit->seconds : 0.0}};
    const std::string json = document.dump(2) + "\n",
                      csv = runtime::statsCsv(document);  // both made before either is written
    if (!a.stats.empty()) writeFileAtomic(a.stats, json);
    if (!a.statsCsv.empty()) writeFileAtomic(a.statsCsv, csv);
  }
  if (!a.trace.empty()) writeFileAtomic(a.trace, result.trace_json);
  if (!a.outputDir.empty()) writeFloatTensors(a.outputDir, result.outputs);
}

/// What runs: compiled now from an ONNX model, or loaded from a compiled .sbin.
struct Prepared {
  compiler::Graph graph;  // quantized
  compiler::CompiledModel model;
  std::optional<compiler::Graph> float_graph;  // absent for a .sbin
  std::string origin;                          // "compiled in ..." or "loaded from ..."
  double compile_seconds = 0;
};

/// "import 0.01, opt 0.002, ..." over the stages that ran and did work.
std::string stageTimes(const compiler::PipelineResult& compiled) {
  std::string out;
  for (const auto& [name, seconds] : compiled.seconds)
    if (compiler::findStage(name)->run) out += (out.empty() ? "" : ", ") + name + " " + std::to_string(seconds);
  return out;
}

bool isCompiledModel(const std::string& path) { return path.size() > 5 && path.ends_with(".sbin"); }

/// The cache is skipped with --no-cache and when the run asks for something only a fresh compile
/// does: per-pass printing, timing or verification, or every intermediate value kept.
bool cacheWanted(const RunArgs& a) {
  const PipelineArgs& c = a.compile;
  return !a.noCache && !a.checkIntermediates && !c.printAfterAll && !c.timePasses && !c.verifyEach;
}

Prepared compileModel(RunArgs& a, const isa::IsaConfig& config) {
  auto options = pipelineOptions(a.compile, config);
  options.lower.keep_intermediates = a.checkIntermediates;
  const std::string dir = cacheWanted(a) ? compiler::defaultCacheDir() : "";
  compiler::CachedCompile c;
  if (dir.empty())
    c.result = compiler::runPipeline(a.compile.model, config, options);
  else
    c = compiler::runPipelineCached(a.compile.model, config, options, compiler::CompileCache(dir));
  if (!c.warning.empty()) std::cerr << c.warning << "\n";
  std::string origin = "compiled in " + std::to_string(c.result.totalSeconds()) + " s (" + stageTimes(c.result) + ")";
  if (c.reused) {  // the artifact was calibrated as a fresh compile would be: same warning
    warnSyntheticCalibration(a.compile,
                             static_cast<size_t>(options.quant.num_samples > 0 ? options.quant.num_samples
                                                                               : compiler::kDefaultCalibrationSamples));
    origin = "compiled artifact reused from cache " + c.entry + " (float model re-derived in " +
             std::to_string(c.result.totalSeconds()) + " s)";
  } else if (!c.entry.empty()) {
    origin += ", compiled artifact stored in cache " + c.entry;
  }
  return {std::move(c.result.graph), std::move(*c.result.compiled), std::move(c.result.float_graph), origin,
          c.result.totalSeconds()};
}

Prepared loadModel(const RunArgs& a, const isa::IsaConfig& config, compiler::Artifact artifact) {
  compiler::checkArtifactMatches(artifact, config, a.compile.model);
  return {std::move(artifact.graph), std::move(artifact.model), std::nullopt, "loaded from the compiled model"};
}

void printSummary(const Prepared& p, const compiler::CompiledModel& model, const runtime::RunResult& result,
                  const Accuracy& accuracy, const isa::IsaConfig& config, const RunArgs& a, double runSeconds) {
  size_t instructions = 0, layers = 0;
  for (const auto& item : model.schedule)
    if (item.npu) {
      instructions += item.npu->program.instructionCount();
      layers += item.npu->layers.size();
    }
  std::cout << a.compile.model << " on ISA '" << config.params().name << "': " << result.programs << " NPU program(s), "
            << instructions << " instructions, " << layers << " NPU layers, " << result.host_operators
            << " host operators; " << p.origin << ", run in " << runSeconds << " s"
            << (a.check ? " including the reference check" : "") << "\n";
  std::cout << result.sim.stats.summary() << sim::energyAreaLine(result.sim.stats, config.params()) << "\n"
            << std::flush;
  const int64_t pes = config.params().array_rows * config.params().array_cols;
  printTotalCycles(result);
  printUtilization(result.layers, result.sim.stats.cycles, pes);
  printHostOperators(p.graph, model);
  printWeightWidths(p.graph);
  printHostTime(result);
  if (a.layers) printLayers(result.layers, pes, accuracy);
  printAccuracy(accuracy);
}

/// The INT8 model's outputs against the float model's on the same inputs; with --layers also
/// every NPU layer's output value.
Accuracy measureAccuracy(const Prepared& p, const runtime::RunResult& result, const compiler::TensorMap& inputs,
                         const RunArgs& a) {
  Accuracy accuracy;
  if (a.timingOnly) return accuracy;
  if (!p.float_graph) {
    accuracy.why_not = "a compiled .sbin holds no float model: run the ONNX file to compare with it";
    return accuracy;
  }
  accuracy.measured = true;
  const auto reference = runtime::floatReference(*p.float_graph, inputs);
  accuracy.outputs = runtime::compareOutputs(reference, result.outputs);
  if (!a.floatOutputDir.empty()) writeFloatTensors(a.floatOutputDir, reference);
  if (a.layers) {
    std::vector<std::string> values;
    for (const auto& l : result.layers) values.push_back(l.report.output);
    accuracy.values = runtime::valueAccuracy(*p.float_graph, p.graph, inputs, values);
  }
  return accuracy;
}

int runModel(RunArgs& a) {
  const bool compiledModel = isCompiledModel(a.compile.model);
  if (compiledModel && !a.compile.emit.empty()) throw Error("--emit needs an ONNX model, not a compiled .sbin");
  std::optional<compiler::Artifact> artifact;  // read once: an 18 MB model's bytes are hashed and parsed once
  if (compiledModel) artifact = compiler::readArtifact(a.compile.model);
  if (compiledModel && a.compile.isa == "default")
    a.compile.isa = isa::shippedConfigPath(artifact->isa_name, a.compile.model);
  const auto config = loadConfig(a.compile.isa);
  if (!std::isnan(a.minCosine)) a.compile.minCosine = a.minCosine;  // also --precision auto's target
  if (!a.compile.emit.empty()) {
    auto options = pipelineOptions(a.compile, config);
    writeStageText(compiler::runPipeline(a.compile.model, config, options, a.compile.emit), config, a.output);
    return kOk;
  }
  if (a.checkIntermediates) a.check = true;
  if (compiledModel && !a.floatOutputDir.empty())
    throw Error("--float-output-dir needs the float model: a compiled .sbin holds none, run the ONNX file");
  Prepared p = compiledModel ? loadModel(a, config, std::move(*artifact)) : compileModel(a, config);
  runtime::Session session(config, std::move(p.model), p.graph);  // the session holds the programs now
  runtime::RunOptions runOptions;
  runOptions.check = a.check;
  runOptions.timing_only = a.timingOnly;
  runOptions.races = a.races;
  runOptions.host_jit = a.hostJit == "on";
  runOptions.host_jit_cache_dir =
      cacheWanted(a) ? compiler::defaultCacheDir() : "";  // the compiled host code, beside the artifacts
  runOptions.trace = !a.trace.empty();
  bool rtlAgrees = true;
  size_t rtlPrograms = 0;
  if (a.rtl == "npu")
    runOptions.after_program = [&](const isa::Program& program,
                                   const std::map<std::string, std::vector<uint8_t>>& inputs,
                                   const sim::SimResult& simulated) {
      rtlAgrees =
          compareOnRtlNpu(config, program, inputs, simulated, "NPU program " + std::to_string(rtlPrograms++) + ": ") &&
          rtlAgrees;
    };
  runOptions.trace_level = sim::parseTraceLevel(a.traceLevel);
  Progress progress(progressWanted(a.compile.quiet));
  progress.begin("simulation");
  runOptions.progress = [&progress](size_t done, size_t total, const std::string& next) {
    progress.detail("step " + std::to_string(done + 1) + "/" + std::to_string(total) + ", " + next);
  };
  const auto start = std::chrono::steady_clock::now();
  const auto inputs = modelInputs(p.graph, a);
  runtime::RunResult result;
  Accuracy accuracy;
  double runSeconds = 0;
  try {  // a node's error (a host operator, the reference interpreter) is reported against the model
    result = session.run(inputs, runOptions);
    runSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.begin("accuracy against the float model");
    accuracy = measureAccuracy(p, result, inputs, a);
    progress.end();
  } catch (const Error& e) {
    throw inFile(e, a.compile.model);
  }
  writeResults(result, accuracy, a, config.params(), {p.compile_seconds, runSeconds});
  printSummary(p, session.model(), result, accuracy, config, a, runSeconds);
  int status = kOk;
  if (a.check && result.mismatch) {
    std::cerr << a.compile.model << ": error: check failed: " << result.mismatch->describe() << "\n";
    status = kCheckFailed;
  } else if (a.check) {
    std::cout << "check: every NPU output equals the reference interpreter bit for bit\n";
  }
  if (!rtlAgrees) {
    std::cerr << a.compile.model << ": error: the RTL NPU differs from the simulator (see above)\n";
    status = kCheckFailed;
  }
  if (const std::string failed = accuracyFailure(accuracy, a.minSqnr, a.minCosine); !failed.empty()) {
    std::cerr << a.compile.model << ": error: accuracy below the threshold: " << failed << "\n";
    status = kCheckFailed;
  }
  return status;
}

}  // namespace

int runCompiledModel(const SimRequest& r) {
  RunArgs a;
  a.compile.model = r.path;
  a.compile.isa = r.isa.empty() ? "default" : r.isa;
  a.inputs = r.inputs;
  a.seed = r.seed;
  a.outputDir = r.outputDir;
  a.stats = r.stats;
  a.trace = r.trace;
  a.timingOnly = r.timingOnly;
  a.races = r.races;
  if (r.rtlNpu) a.rtl = "npu";
  return runModel(a);
}

void registerRun(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  static RunArgs a;
  auto* cmd = app.add_subcommand(
      "run", "Compile an ONNX model for a config, simulate it and report cycles (exit 1 if --check fails)");
  CLI::Option* emit = addPipelineOptions(*cmd, a.compile);
  cmd->add_option("-o,--output", a.output, "with --emit: write the stage's text here instead of stdout")->needs(emit);
  cmd->add_option("--input", a.inputs, "NAME=FILE.npy for a float32 model input (others get seeded random values)");
  cmd->add_option("--seed", a.seed, "seed for random model inputs (not for calibration)")->default_val(1);
  cmd->add_option("--output-dir", a.outputDir,
                  "write each model output as DIR/NAME.npy (in NAME, characters other than letters, digits, '_', '-' "
                  "and '.' become '_': output Identity:0 is DIR/Identity_0.npy)");
  auto* floatOutputDir =
      cmd->add_option("--float-output-dir", a.floatOutputDir,
                      "write each output of the float model on the same inputs (what the accuracy line compares "
                      "with) as DIR/NAME.npy, named as --output-dir; needs an ONNX model");
  cmd->add_option("--stats", a.stats, "write the statistics, per layer and in total, as JSON (docs/stats.md)");
  cmd->add_option("--stats-csv", a.statsCsv,
                  "write the per-layer statistics as CSV (one row per layer and a total row)");
  auto* trace =
      cmd->add_option("--trace", a.trace, "write the whole model's Chrome/Perfetto trace-event JSON timeline");
  cmd->add_option("--trace-level", a.traceLevel,
                  "what --trace records: every instruction, or only steps, layers and counters")
      ->check(CLI::IsMember({"layers", "instructions"}))
      ->default_val("instructions")
      ->needs(trace);
  auto* check =
      cmd->add_flag("--check", a.check, "compare every NPU output with the reference interpreter, bit for bit");
  auto* checkAll =
      cmd->add_flag("--check-intermediates", a.checkIntermediates,
                    "keep every NPU value in DRAM and check them all in order, to find the first that differs");
  cmd->add_flag("--races", a.races,
                "fail a program whose scratchpad/accumulator accesses the dependency tokens do not order");
  cmd->add_option("--rtl", a.rtl,
                  "npu: also run every NPU program on the whole Verilated NPU (rtl/npu: control, timing, DMA, "
                  "the vector unit and the array) and compare each instruction's start and "
                  "completion cycle with the "
                  "simulator's, and the outputs when the RTL computed every instruction (exit 1 if any differs)")
      ->check(CLI::IsMember({"npu"}));
  cmd->add_flag("--layers", a.layers,
                "print per layer the predicted and simulated cycles, and the SQNR and saturation of its INT8 output "
                "against the float model");
  auto* minSqnr =
      cmd->add_option("--min-sqnr", a.minSqnr, "fail (exit 1) if an output's SQNR against the float model is below DB");
  auto* minCosine = cmd->add_option("--min-cosine", a.minCosine,
                                    "fail (exit 1) if an output's cosine against the float model is below X (also "
                                    "--precision auto's target)");
  cmd->add_flag("--no-cache", a.noCache,
                "compile even if the compile cache ($XDG_CACHE_HOME/systole or ~/.cache/systole) holds this model's "
                "artifact, and store nothing");
  cmd->add_option("--host-jit", a.hostJit,
                  "run the host operators as native code compiled with LLVM (on), or in the reference interpreter's "
                  "kernels (off); the results are the same bit for bit")
      ->check(CLI::IsMember({"on", "off"}))
      ->default_val("on");
  cmd->add_flag("--timing-only", a.timingOnly,
                "cycles and statistics only, no data computed (so nothing to check or measure)")
      ->excludes(check)
      ->excludes(checkAll)
      ->excludes(minSqnr)
      ->excludes(minCosine)
      ->excludes(floatOutputDir);
  actions.emplace_back(cmd, [] { return runModel(a); });
}

}  // namespace systole::tools
