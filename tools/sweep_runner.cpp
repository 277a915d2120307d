// Algorithm: a work list of unfinished runs; up to `jobs` children started with posix_spawn, their
// stdout and stderr sent to the run's log; waitpid(-1) reaps whichever ends first and starts the
// next. A child that fails leaves MODEL.failed (exit status and the log's last lines), so a later
// sweep can report it without running it again.
#include "sweep_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "progress.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/file_io.h"

extern char** environ;

namespace systole::tools {

namespace fs = std::filesystem;

RunFiles runFiles(const SweepSpec& spec, const std::string& dir, size_t k) {
  char id[16];
  std::snprintf(id, sizeof id, "p%06zu", spec.points[k / spec.models.size()].id);
  const std::string folder = (fs::path(dir) / "points" / id).string(), name = spec.models[k % spec.models.size()].name;
  return {folder, folder + "/" + name + ".stats.json", folder + "/" + name + ".failed", folder + "/" + name + ".log"};
}

std::vector<std::string> runArguments(const SweepSpec& spec, const std::string& dir, size_t k) {
  const SweepPoint& point = spec.points[k / spec.models.size()];
  const SweepModel& model = spec.models[k % spec.models.size()];
  // --no-cache: every point is another config, so its artifact would never be reused, and a
  // sweep would fill the user's compile cache with one artifact per point (it resumes from its
  // own results instead).
  std::vector<std::string> args = {"run",     model.path,   "--isa",   spec.isa,
                                   "--quiet", "--no-cache", "--stats", runFiles(spec, dir, k).stats};
  for (const auto& [key, value] : point.overrides) args.insert(args.end(), {"--set", key + "=" + value});
  if (!model.calib.empty()) args.insert(args.end(), {"--calib", model.calib});
  args.insert(args.end(), spec.options.begin(), spec.options.end());
  return args;
}

namespace {

bool finished(const RunFiles& f) { return fs::exists(f.stats) || fs::exists(f.failed); }

pid_t start(const std::string& self, const std::vector<std::string>& args, const RunFiles& f) {
  fs::create_directories(f.folder);
  fs::remove(f.failed);
  std::vector<char*> argv{const_cast<char*>(self.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, f.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int err = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) throw Error("sweep: cannot start " + self + ": " + std::strerror(err));
  return pid;
}

std::string tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::vector<std::string> all;
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

/// Records how the run ended; true if it succeeded.
bool record(const RunFiles& f, int status) {
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(f.stats);
  if (ok) return true;
  fs::remove(f.stats);  // a run that failed a check does not count as a result
  std::ostringstream why;
  if (WIFEXITED(status))
    why << "exit status " << WEXITSTATUS(status) << "\n";
  else if (WIFSIGNALED(status))
    why << "killed by signal " << WTERMSIG(status) << "\n";
  writeFileAtomic(f.failed, why.str() + tail(f.log, 20));
  return false;
}

}  // namespace

SweepProgress runSweep(const SweepSpec& spec, const std::string& dir, const std::string& self, int jobs,
                       bool retryFailed, bool quiet) {
  SweepProgress progress;
  std::vector<size_t> todo;
  for (size_t k = 0; k < spec.runCount(); ++k) {
    const RunFiles f = runFiles(spec, dir, k);
    if (fs::exists(f.stats) || (!retryFailed && fs::exists(f.failed)))
      ++progress.finished_before;
    else
      todo.push_back(k);
  }
  Progress bar(progressWanted(quiet));
  bar.begin("sweep");
  std::map<pid_t, size_t> running;
  size_t next = 0;
  const auto show = [&] {
    bar.detail(std::to_string(progress.finished_before + progress.ran) + "/" + std::to_string(spec.runCount()) +
               " runs, " + std::to_string(running.size()) + " running, " + std::to_string(progress.failed) + " failed");
  };
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < static_cast<size_t>(std::max(jobs, 1))) {
      const size_t k = todo[next++];
      running[start(self, runArguments(spec, dir, k), runFiles(spec, dir, k))] = k;
    }
    show();
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) throw Error(std::string("sweep: waitpid: ") + std::strerror(errno));
    auto it = running.find(pid);
    if (it == running.end()) continue;
    if (!record(runFiles(spec, dir, it->second), status)) ++progress.failed;
    ++progress.ran;
    running.erase(it);
  }
  bar.end();
  return progress;
}

bool runOne(const SweepSpec& spec, const std::string& dir, const std::string& self, size_t k) {
  const RunFiles f = runFiles(spec, dir, k);
  if (finished(f)) return fs::exists(f.stats);
  int status = 0;
  const pid_t pid = start(self, runArguments(spec, dir, k), f);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return record(f, status);
}

}  // namespace systole::tools
