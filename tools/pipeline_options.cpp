#include "pipeline_options.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.h"
#include "progress.h"
#include "systole/isa/file_io.h"

namespace systole::tools {

namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

CLI::Option* addEmitOption(CLI::App& cmd, PipelineArgs& a) {
  std::vector<std::string> names;
  std::string help = "stop after a stage and write its text:";
  for (const auto& stage : compiler::stageTable()) {
    names.emplace_back(stage.name);
    help += " " + std::string(stage.name) + " (" + std::string(stage.help) + ");";
  }
  help.pop_back();
  return cmd.add_option("--emit", a.emit, help)->check(CLI::IsMember(names));
}

void addPassOptions(CLI::App& cmd, PipelineArgs& a) {
  std::string help = "comma-separated passes instead of the default pipeline:";
  for (const auto& p : compiler::passRegistry()) help += " " + std::string(p.name);
  cmd.add_option("--passes", a.passes, help);
  cmd.add_flag("--verify-each", a.verifyEach, "verify the graph after every pass (always on in debug builds)");
  cmd.add_flag("--print-after-all", a.printAfterAll,
               "print the graph to stderr after every pass, and the tile plan after every back-end pass");
  cmd.add_flag("--time-passes", a.timePasses, "print each stage's and each pass's time to stderr");
}

void addCalibrationOptions(CLI::App& cmd, PipelineArgs& a) {
  cmd.add_option(
         "--calib", a.calibDir,
         "calibration data: a directory of float32 .npy files, one sample each or images stacked along the batch "
         "dimension, combined into the input's batch (or INPUT_NAME.npy files in one subdirectory per sample), or a "
         ".npz archive of them; default: seeded random inputs uniform in [-1, 1)")
      ->check(CLI::ExistingPath);
  cmd.add_option("--calib-samples", a.calibSamples,
                 "calibration samples to use (default: 8 random inputs, or every sample of --calib)")
      ->check(CLI::NonNegativeNumber);
  const compiler::QuantOptions defaults;
  cmd.add_option(
         "--calib-method", a.calibMethod,
         "how calibration picks each tensor's range (bench/int8_accuracy.md compares them on seven architectures)")
      ->check(CLI::IsMember({"minmax", "percentile", "entropy"}))
      ->default_val(std::string(compiler::calibrationMethodName(defaults.method)));
  cmd.add_option("--precision", a.precision,
                 "weight width of every Conv / Gemm / MatMul: int8 or int4 where the config's types.weight offers it, "
                 "or auto: per layer, the narrowest offered that keeps the outputs' cosine against the float model at "
                 "--min-cosine (default 0.99) on the calibration samples (default: the first type of types.weight)")
      ->check(CLI::IsMember({"int8", "int4", "auto"}));
  cmd.add_option("--smooth", a.smooth,
                 "activation smoothing (SmoothQuant) with this alpha in [0, 1) for each LayerNormalization that feeds "
                 "only MatMul / Gemm layers: its output channels divided by max|x|^alpha / max|W|^(1-alpha), their "
                 "weight rows multiplied; 0: off (bench/precision.md measures it)")
      ->check(CLI::Range(0.0, 0.999))
      ->default_val(a.smooth);
  cmd.add_option("--search-samples", a.searchSamples,
                 "--precision auto judges on the first N calibration samples; the next N, when there are, are held "
                 "out and their cosine is reported")
      ->check(CLI::PositiveNumber)
      ->default_val(defaults.search_samples);
  cmd.add_option("--bias-correction", a.biasCorrection,
                 "fold a Conv / Gemm / MatMul's mean output shift from weight rounding into its bias, measured on the "
                 "calibration samples: in the layers narrower than int8 (narrow), in every layer (all), or none (off); "
                 "bench/precision.md measures them")
      ->check(CLI::IsMember({"off", "narrow", "all"}))
      ->default_val(a.biasCorrection);
  cmd.add_option("--equalize", a.equalize,
                 "cross-layer equalization of Conv -> Conv pairs (the first layer's output channels rescaled to "
                 "balance the activation's per-channel ranges, the second layer's input channels inversely): on, for "
                 "pairs joined by nothing or a ReLU (the float function is unchanged); relu6, which "
                 "also turns a joining ReLU6 into a ReLU (the float function changes; --check still compares with "
                 "the original); off. bench/precision.md measures them")
      ->check(CLI::IsMember({"off", "on", "relu6"}))
      ->default_val(a.equalize);
  cmd.add_option("--calib-percentile", a.calibPercentile,
                 "with --calib-method=percentile: the percentile, in (50, 100]")
      ->check(CLI::Range(50.000001, 100.0))
      ->default_val(defaults.percentile);
}

void printTimes(const compiler::PassInfo& pass, const compiler::Graph&, double seconds) {
  std::fprintf(stderr, "pass %-25s %9.3f ms\n", std::string(pass.name).c_str(), seconds * 1e3);
}

}  // namespace

void warnSyntheticCalibration(const PipelineArgs& a, size_t samples) {
  if (!a.calibDir.empty()) return;
  std::fprintf(stderr,
               "%s: warning: INT8 ranges were calibrated on %zu synthetic inputs uniform in [-1, 1), not on real data; "
               "pass representative samples with --calib DIR\n",
               a.model.c_str(), samples);
}

CLI::Option* addPipelineOptions(CLI::App& cmd, PipelineArgs& a) {
  cmd.add_option("MODEL", a.model, "float32 ONNX model (opset 9 to 17)")->required();
  cmd.add_option("--isa", a.isa, "ISA config (path or shipped name)")->default_val("default");
  addSetOption(cmd);
  CLI::Option* emit = addEmitOption(cmd, a);
  addPassOptions(cmd, a);
  addCalibrationOptions(cmd, a);
  cmd.add_option("-j,--jobs", a.jobs,
                 "calibration threads (default: the hardware concurrency; the result does not depend on it)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_flag("-q,--quiet", a.quiet, "no progress line on stderr (drawn only when stderr is a terminal)");
  cmd.add_option("--min-npu-macs", a.minNpuMacs, "keep runs of NPU operators with fewer MACs on the host")
      ->default_val(0);
  cmd.add_option(
      "--shape", a.shapes,
      "NAME=1x3x224x224: bind a model input's symbolic dimensions (repeatable); an unbound symbolic batch is 1");
  return emit;
}

compiler::PipelineOptions pipelineOptions(const PipelineArgs& a, const isa::IsaConfig& isa) {
  compiler::PipelineOptions options;
  options.passes = splitList(a.passes);
  options.verify_each = a.verifyEach;
  if (a.printAfterAll || a.timePasses)
    options.after_pass = [&a](const compiler::PassInfo& pass, const compiler::Graph& g, double seconds) {
      if (a.timePasses) printTimes(pass, g, seconds);
      if (a.printAfterAll) std::cerr << "// after " << pass.name << "\n" << g.print();
    };
  if (a.printAfterAll)
    for (std::string_view pass : compiler::backendPasses()) options.lower.print_after.emplace_back(pass);
  auto progress = std::make_shared<Progress>(progressWanted(a.quiet));
  options.before_stage = [progress](const compiler::StageInfo& stage) { progress->begin(std::string(stage.label)); };
  options.quant.progress = [progress](size_t done, size_t total) {
    progress->detail("sample " + std::to_string(done) + "/" + std::to_string(total));
  };
  options.after_stage = [&a, &isa, progress](const compiler::StageInfo& stage, const compiler::PipelineResult& r,
                                             double seconds) {
    progress->end();
    if (stage.name == "quant") warnSyntheticCalibration(a, r.calibration_samples);
    if (a.timePasses && stage.run)
      std::fprintf(stderr, "%-30s %9.3f ms\n", std::string(stage.label).c_str(), seconds * 1e3);
    const auto passes = compiler::backendPasses();
    if (a.printAfterAll && std::find(passes.begin(), passes.end(), stage.name) != passes.end())
      std::cerr << "// after " << stage.name << "\n" << stage.text(r, isa);
  };
  options.quant.method = compiler::parseCalibrationMethod(a.calibMethod).value();  // checked by CLI11
  options.quant.num_samples = a.calibSamples;
  options.quant.jobs = a.jobs;
  options.quant.percentile = a.calibPercentile;
  options.calibration_dir = a.calibDir;
  options.precision = a.precision;
  options.quant.bias_correction = compiler::parseBiasCorrection(a.biasCorrection).value();  // checked by CLI11
  options.quant.equalization = compiler::parseEqualization(a.equalize).value();             // checked by CLI11
  options.min_cosine = a.minCosine;
  options.quant.search_samples = a.searchSamples;
  options.quant.smoothing = a.smooth;
  options.lower.min_npu_macs = a.minNpuMacs;
  for (const std::string& arg : a.shapes) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--shape expects NAME=DxDx..., got '" + arg + "'");
    options.import.input_shapes[arg.substr(0, eq)] = compiler::parseShape(arg.substr(eq + 1));
  }
  return options;
}

void writeStageText(const compiler::PipelineResult& result, const isa::IsaConfig& isa, const std::string& output) {
  const std::string text = compiler::stageText(result, isa);
  if (output.empty())
    std::cout << text;
  else
    writeFileAtomic(output, text);
}

}  // namespace systole::tools
