// A sweep's results: every run's summary from its stats file, the designs on the Pareto front
// (the suite's total cycles, its total energy and the chip's area, and its worst cosine when every
// run measured one, over the points whose runs all succeeded), results.csv and the sweep's HTML page.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sweep_spec.h"

namespace systole::tools {

struct RunSummary {
  double total_cycles = 0, npu_cycles = 0, time_us = 0, energy_pj = 0, area_mm2 = 0;
  double mac_utilization = 0, cycles_per_bound = 0, dram_bytes = 0;
  std::optional<double> cosine;  // the worst output's, when accuracy was measured
};

struct PointResult {
  const SweepPoint* point = nullptr;
  std::vector<std::optional<RunSummary>> runs;     // per model; empty when not (successfully) run
  std::vector<std::string> failures;               // per model: MODEL.failed's text, or ""
  bool complete = false;                           // every model ran
  double cycles = 0, energy_pj = 0, area_mm2 = 0;  // over the models (area: the chip's)
  bool pareto = false;
  std::string detail_html;  // per model: where the cycles and energy went per layer
};

/// Reads every run's result files under `dir` (each stats file is parsed once and let go).
std::vector<PointResult> collectSweep(const SweepSpec& spec, const std::string& dir);

std::string sweepCsv(const SweepSpec& spec, const std::vector<PointResult>& results);
std::string sweepHtml(const SweepSpec& spec, const std::vector<PointResult>& results);

}  // namespace systole::tools
