// systole report: one self-contained HTML page from one or more stats documents (`run --stats`):
// a summary row per run, each run's roofline, per-layer cycle, DMA and energy bars and tables,
// and with two or more runs the first against each other (config diff, per-layer cycles and energy).
#include <iostream>

#include "commands.h"
#include "report_page.h"
#include "systole/isa/file_io.h"

namespace systole::tools {

namespace {

struct ReportArgs {
  std::vector<std::string> stats;
  std::string output, title;
};

int writeReport(const ReportArgs& a) {
  std::vector<StatsRun> runs;
  for (const auto& path : a.stats) runs.push_back(readStatsRun(path));
  std::vector<const StatsRun*> all;
  for (const auto& r : runs) all.push_back(&r);
  std::string body = "<h2>Runs</h2>" + runsSummaryHtml(all);
  for (size_t i = 1; i < runs.size(); ++i)
    body += "<h2>" + std::string(runs.size() > 2 ? "Run 1 against run " + std::to_string(i + 1) : "A against B") +
            "</h2>" + runDiffHtml(runs[0], runs[i]);
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string detail = runDetailHtml(runs[i]);
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
  actions.emplace_back(cmd, [] { return writeReport(a); });
}

}  // namespace systole::tools
