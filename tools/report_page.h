// The HTML report of one or more runs, read from their stats documents (docs/stats.md, schema
// systole.stats/2): a summary of each run and its config, a roofline plot of the layers, where each
// layer's cycles went (compute busy, stalls by cause, DMA), the energy breakdown, per-layer tables,
// and a side-by-side diff of two runs. `systole report` writes it; `systole sweep` puts the same
// sections in its own page.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace systole::tools {

/// One run's statistics and what to call it in the report.
struct StatsRun {
  std::string label;  // e.g. the file name
  nlohmann::ordered_json doc;
};

/// Reads a stats document; a file that is not JSON or not a systole.stats/2 document with layers
/// is an Error at the file (with line and column for a JSON syntax error).
StatsRun readStatsRun(const std::string& path);

/// The name of the config the run used.
std::string configName(const StatsRun& run);

/// Table: one row per run (config, cycles, utilization, cycles over the roofline bound, DRAM
/// bytes, energy, area, accuracy).
std::string runsSummaryHtml(const std::vector<const StatsRun*>& runs);
/// Everything about one run: config, roofline, per-layer cycle, DMA and energy bars, layer table.
std::string runDetailHtml(const StatsRun& run);
/// Where one run's cycles and energy went per layer (the two bar charts of runDetailHtml).
std::string runBreakdownHtml(const StatsRun& run);
/// Config A against B (the parameters that differ) and every layer's cycles and energy side by side.
std::string runDiffHtml(const StatsRun& a, const StatsRun& b);

/// A whole self-contained page (inline CSS, no script, no external resource) around `body`.
std::string htmlPage(const std::string& title, const std::string& body);

}  // namespace systole::tools
