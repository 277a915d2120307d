// systole sweep: runs a spec's grid of config overrides over its models (sweep_spec.h), in
// parallel child processes on this machine or as a Slurm job array, resumably, then writes
// DIR/results.csv (one row per design point and model) and DIR/report.html (the Pareto front and,
// per design, where the cycles and energy went per layer). Exit 1 if a run failed.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "commands.h"
#include "report_page.h"
#include "sweep_report.h"
#include "sweep_runner.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

namespace systole::tools {

namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  std::string spec, dir, sbatchArgs;
  int jobs = 0;
  int64_t task = -1;
  bool retryFailed = false, quiet = false, slurm = false, slurmWait = false;
};

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string self() { return fs::read_symlink("/proc/self/exe").string(); }

/// Collects every result, writes results.csv and report.html, and prints the outcome.
int report(const SweepSpec& spec, const std::string& dir) {
  const auto results = collectSweep(spec, dir);
  writeFileAtomic(dir + "/results.csv", sweepCsv(spec, results));
  writeFileAtomic(dir + "/report.html",
                  htmlPage("Systole sweep: " + fs::path(spec.file).filename().string(), sweepHtml(spec, results)));
  size_t failed = 0, pending = 0, front = 0;
  std::string firstFailure;
  for (const auto& r : results) {
    front += r.pareto;
    for (size_t m = 0; m < spec.models.size(); ++m) {
      if (r.runs[m]) continue;
      if (r.failures[m].empty())
        ++pending;
      else if (++failed == 1)
        firstFailure = "point " + std::to_string(r.point->id) + ", " + spec.models[m].name + ": " + r.failures[m];
    }
  }
  std::cout << "sweep: " << spec.points.size() << " design points x " << spec.models.size()
            << " models = " << spec.runCount() << " runs: " << spec.runCount() - failed - pending << " done, " << failed
            << " failed, " << pending << " pending; " << front << " point(s) on the Pareto front\nwrote " << dir
            << "/results.csv and " << dir << "/report.html\n";
  if (failed) {
    std::cerr << spec.file << ": error: " << failed << " run(s) failed (their logs are under " << dir
              << "/points); the first: " << firstFailure;
    return kCheckFailed;
  }
  return kOk;
}

int submitToSlurm(const SweepSpec& spec, const SweepArgs& a) {
  const std::string script = a.dir + "/sweep.sbatch";
  fs::create_directories(a.dir + "/slurm");
  const std::string text =
      "#!/bin/bash\n#SBATCH --job-name=systole-sweep\n#SBATCH --array=0-" + std::to_string(spec.runCount() - 1) +
      "\n#SBATCH --output=" + fs::absolute(a.dir).string() + "/slurm/%A_%a.out\n#SBATCH --cpus-per-task=1\n" +
      "# One array task per (design point, model) run; finished runs are skipped, so resubmitting resumes.\nexec " +
      shellQuote(self()) + " sweep " + shellQuote(fs::absolute(spec.file).string()) + " -o " +
      shellQuote(fs::absolute(a.dir).string()) + " --task \"$SLURM_ARRAY_TASK_ID\"\n";
  writeFileAtomic(script, text);
  const std::string command =
      "sbatch --parsable " + std::string(a.slurmWait ? "--wait " : "") + a.sbatchArgs + " " + shellQuote(script);
  std::cout << "sweep: submitting " << spec.runCount() << " runs as a Slurm job array: " << command << "\n"
            << std::flush;
  const int status = std::system(command.c_str());
  if (status != 0) throw Error(SourceLocation{script}, "sbatch failed (status " + std::to_string(status) + ")");
  if (!a.slurmWait) {
    std::cout << "sweep: submitted; when the job array has finished, `systole sweep " << spec.file << " -o " << a.dir
              << "` collects the results (it runs nothing that finished)\n";
    return kOk;
  }
  return report(spec, a.dir);
}

int sweep(const SweepArgs& a) {
  const SweepSpec spec = loadSweepSpec(a.spec);
  for (const SweepModel& m : spec.models)  // a missing model would fail every one of its runs
    for (const std::string& path : {m.path, m.calib})
      if (!path.empty() && !fs::exists(path))
        throw Error(SourceLocation{spec.file, m.line, m.col}, "'" + path + "' does not exist");
  fs::create_directories(a.dir);
  if (a.task >= 0) {
    if (static_cast<size_t>(a.task) >= spec.runCount())
      throw Error("--task " + std::to_string(a.task) + ": the sweep has " + std::to_string(spec.runCount()) + " runs");
    return runOne(spec, a.dir, self(), static_cast<size_t>(a.task)) ? kOk : kCheckFailed;
  }
  if (a.slurm) return submitToSlurm(spec, a);
  const int jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const SweepProgress p = runSweep(spec, a.dir, self(), jobs, a.retryFailed, a.quiet);
  std::cout << "sweep: ran " << p.ran << " run(s) on " << jobs << " process(es) (" << p.failed << " failed), "
            << p.finished_before << " already finished\n";
  return report(spec, a.dir);
}

}  // namespace

void registerSweep(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions) {
  static SweepArgs a;
  auto* cmd = app.add_subcommand("sweep",
                                 "Run a grid of config overrides over models, in parallel and resumably, and write "
                                 "results.csv and an HTML report with the Pareto front");
  cmd->add_option("spec", a.spec,
                  "the sweep spec (YAML: isa, models, grid, optional sample and options; docs/sweep.md)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output-dir", a.dir,
                  "where results go (points/, results.csv, report.html); a rerun resumes here")
      ->required();
  cmd->add_option("-j,--jobs", a.jobs, "runs at a time (default: the cores)");
  cmd->add_flag("--retry-failed", a.retryFailed,
                "run again the runs that failed before (finished ones are never rerun)");
  cmd->add_flag("-q,--quiet", a.quiet, "no progress line");
  auto* task = cmd->add_option(
      "--task", a.task, "run only run K (0-based: point-major, model-minor) and exit: what a Slurm array task does");
  auto* slurm = cmd->add_flag("--slurm", a.slurm,
                              "submit the runs as a Slurm job array (sbatch --array) instead of running them here")
                    ->excludes(task);
  cmd->add_flag("--wait", a.slurmWait, "with --slurm: wait for the job array (sbatch --wait), then write the results")
      ->needs(slurm);
  cmd->add_option("--sbatch-args", a.sbatchArgs,
                  "with --slurm: more sbatch arguments, e.g. \"--partition=big --time=10\"")
      ->needs(slurm);
  actions.emplace_back(cmd, [] { return sweep(a); });
}

}  // namespace systole::tools
