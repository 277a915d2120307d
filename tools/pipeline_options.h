// The compile options that `systole compile` and `systole run` share: one registration, so both
// accept the same flags with the same defaults, and one translation into
// compiler::PipelineOptions, so both run the compiler's one stage list the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "systole/compiler/pipeline.h"

namespace systole::tools {

struct PipelineArgs {
  std::string model, isa = "default", emit, passes;
  bool verifyEach = false, printAfterAll = false, timePasses = false, quiet = false;
  int jobs = 0;  // calibration threads; 0: the hardware concurrency
  std::string calibDir, calibMethod;
  double calibPercentile = 0;
  int calibSamples = 0;  // 0: 8 seeded random inputs, or every sample in calibDir
  int64_t minNpuMacs = 0;
  std::string precision;    // --precision: "", int8, int4, auto
  double minCosine = 0.99;  // --precision auto's target (run's --min-cosine when given)
  int searchSamples = 4;
  double smooth = 0;  // --smooth ALPHA: activation smoothing; 0: off                  // --search-samples: calibration
                      // samples --precision auto judges on
  std::string equalize = "off";           // --equalize off|on|relu6
  std::string biasCorrection = "narrow";  // --bias-correction off|narrow|all
  std::vector<std::string> shapes;        // NAME=DxDx...
};

/// Adds MODEL, --isa, --emit (stages from compiler::stageTable()), --passes, --verify-each,
/// --print-after-all, --time-passes, --calib, --calib-samples, --calib-method, --jobs, --quiet,
/// --min-npu-macs and --shape.
/// Returns the --emit option.
CLI::Option* addPipelineOptions(CLI::App& cmd, PipelineArgs& a);

/// The options the flags ask for; --print-after-all and --time-passes print to stderr, and so does
/// a progress line for stages longer than a second (when stderr is a terminal, unless --quiet).
compiler::PipelineOptions pipelineOptions(const PipelineArgs& a, const isa::IsaConfig& isa);

/// Without --calib: warns on stderr that INT8 ranges come from `samples` synthetic inputs, not real
/// data (once per compile; a compile cache hit repeats it, as its artifact was calibrated so).
void warnSyntheticCalibration(const PipelineArgs& a, size_t samples);

/// Writes the text of the last stage that ran to `output`, or to stdout when it is empty.
void writeStageText(const compiler::PipelineResult& result, const isa::IsaConfig& isa, const std::string& output);

}  // namespace systole::tools
