// Runs a sweep's (point, model) runs as `systole run` child processes, at most `jobs` at a time
// (one process per run: SystemC elaborates once per process, and a crash stays in its run).
// Each run's files live in DIR/points/pNNNNNN/: MODEL.stats.json when it succeeded (written
// atomically by `run`), MODEL.failed with the exit status and the log's tail when it did not, and
// MODEL.log (its stdout and stderr). A run with either result file is finished and not rerun.
#pragma once

#include <string>

#include "sweep_spec.h"

namespace systole::tools {

/// The files of run `k` (SweepSpec::runCount()).
struct RunFiles {
  std::string folder, stats, failed, log;
};
RunFiles runFiles(const SweepSpec& spec, const std::string& dir, size_t k);

/// `systole run` arguments of run `k` (without the program name).
std::vector<std::string> runArguments(const SweepSpec& spec, const std::string& dir, size_t k);

struct SweepProgress {
  size_t finished_before = 0, ran = 0, failed = 0;  // failed: of those run now
};

/// Runs every unfinished run (all of them with retryFailed, else those without a result file);
/// `self` is the systole binary. Progress on stderr when it is a terminal and !quiet.
SweepProgress runSweep(const SweepSpec& spec, const std::string& dir, const std::string& self, int jobs,
                       bool retryFailed, bool quiet);

/// Runs run `k` (unless it is finished) in a child and waits for it (a Slurm array task); true if it
/// has a result.
bool runOne(const SweepSpec& spec, const std::string& dir, const std::string& self, size_t k);

}  // namespace systole::tools
