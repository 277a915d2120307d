// systole report: one self-contained HTML page from one or more stats documents (`run --stats`):
// a summary row per run, each run's roofline, per-layer cycle, DMA and energy bars and tables,
// and with two or more runs the first against each other (config diff, per-layer cycles and energy);
// with --rtl-area, a run's area model beside its config's synthesized RTL.
#include <iostream>

#include "commands.h"
#include "report_page.h"
#include "rtl_area.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

namespace systole::tools {

namespace {

struct ReportArgs {
  std::vector<std::string> stats, rtlArea;
  std::string output, title;
  double um2PerTransistor = 0.2;  // Nangate 45 nm's NAND2_X1: 0.798 um^2 for 4 transistors
};

/// Per run, the synthesis summary of its config (null: none given). A summary that matches no
/// run, or two for one config, is an Error.
std::vector<const RtlSynthesis*> matchSyntheses(const std::vector<RtlSynthesis>& syntheses,
                                                const std::vector<StatsRun>& runs) {
  std::vector<const RtlSynthesis*> byRun(runs.size(), nullptr);
  for (const RtlSynthesis& synth : syntheses) {
    bool used = false;
    for (size_t i = 0; i < runs.size(); ++i) {
      if (configName(runs[i]) != synth.config) continue;
      if (byRun[i] != nullptr)
        throw Error(SourceLocation{synth.path, 0, 0},
                    "a second synthesis of config '" + synth.config + "' (the first: " + byRun[i]->path + ")");
      checkSameConfig(synth, runs[i]);
      byRun[i] = &synth;
      used = true;
    }
    if (!used)
      throw Error(SourceLocation{synth.path, 0, 0},
                  "synthesized from config '" + synth.config + "', which no run used");
  }
  return byRun;
}

int writeReport(const ReportArgs& a) {
  std::vector<StatsRun> runs;
  for (const auto& path : a.stats) runs.push_back(readStatsRun(path));
  std::vector<RtlSynthesis> syntheses;
  for (const auto& path : a.rtlArea) syntheses.push_back(readRtlSynthesis(path));
  const std::vector<const RtlSynthesis*> synthesisOf = matchSyntheses(syntheses, runs);
  std::vector<const StatsRun*> all;
  for (const auto& r : runs) all.push_back(&r);
  std::string body = "<h2>Runs</h2>" + runsSummaryHtml(all);
  for (size_t i = 1; i < runs.size(); ++i)
    body += "<h2>" + std::string(runs.size() > 2 ? "Run 1 against run " + std::to_string(i + 1) : "A against B") +
            "</h2>" + runDiffHtml(runs[0], runs[i]);
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string detail = runDetailHtml(runs[i]);
    if (synthesisOf[i] != nullptr) detail += rtlAreaHtml(runs[i], *synthesisOf[i], a.um2PerTransistor);
    if (runs.size() == 1)
      body += "<h2>Details</h2>" + detail;
    else
      body += std::string("<details") + (i == 0 ? " open" : "") + "><summary><b>Details: " + runs[i].label +
              "</b></summary>" + detail + "</details>";
  }
  const std::string title = a.title.empty() ? "Systole report: " + runs[0].doc.value("isa", std::string()) : a.title;
  writeFileAtomic(a.output, htmlPage(title, body));
  std::cout << "wrote " << a.output << " (" << runs.size() << " run" << (runs.size() == 1 ? "" : "s") << ")\n";
  return kOk;
}

}  // namespace

void registerReport(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  static ReportArgs a;
  auto* cmd = app.add_subcommand("report",
                                 "Write a self-contained HTML report (roofline, per-layer cycles, stalls, DMA, energy; "
                                 "a diff of two runs) from stats JSON files");
  cmd->add_option("stats", a.stats, "stats documents written by `systole run --stats` (the first is A, the second B)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", a.output, "the HTML file to write")->required();
  cmd->add_option("--title", a.title, "the page's title");
  cmd->add_option("--rtl-area", a.rtlArea,
                  "synthesis summaries (BUILD_DIR/synth/CONFIG.json from bench/synth.sh): each run of that config "
                  "shows the YAML's area model beside the synthesized RTL")
      ->check(CLI::ExistingFile);
  cmd->add_option("--um2-per-transistor", a.um2PerTransistor,
                  "the area of one transistor for --rtl-area, in um^2 (default 0.2: a 45 nm NAND2 over 4)")
      ->check(CLI::Range(1e-6, 1e6));
  actions.emplace_back(cmd, [] { return writeReport(a); });
}

}  // namespace systole::tools
