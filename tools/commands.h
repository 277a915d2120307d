// The `systole` driver's subcommands. Each register* function adds one subcommand to the app and
// returns the action to run when it is chosen; the action returns the process exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "systole/isa/config.h"

namespace systole::tools {

/// Exit codes shared by every subcommand.
enum ExitCode : int { kOk = 0, kCheckFailed = 1, kBadInput = 2 };

using Action = std::function<int()>;
using Registrar = std::function<void(CLI::App& parent, std::vector<std::pair<CLI::App*, Action>>& actions)>;

void registerIsa(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions);
void registerAsm(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions);
void registerSim(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions);
void registerCompile(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions);
void registerRun(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions);
void registerReport(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions);
void registerSweep(CLI::App& app, std::vector<std::pair<CLI::App*, Action>>& actions);

/// `systole sim` on a compiled model (.sbin version 2): runs it end to end as `systole run` does.
struct SimRequest {
  std::string path, isa, outputDir, stats, trace;
  std::vector<std::string> inputs;  // NAME=FILE.npy, by the model's float input names
  uint64_t seed = 1;
  bool timingOnly = false;
  bool races = false;
  bool rtlNpu = false;  // --rtl=npu
};
int runCompiledModel(const SimRequest& request);

/// Adds `--set KEY=VALUE` (repeatable) to a command that takes a config: every config the
/// command loads gets the overrides (one command runs per process).
void addSetOption(CLI::App& cmd);
/// Loads a config given as a path or as the name of a shipped config ("default", "tiny"), with
/// the command's --set overrides (shipped configs: isa/shipped_configs.h).
isa::IsaConfig loadConfig(const std::string& pathOrName);

}  // namespace systole::tools
