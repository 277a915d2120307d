// systole: the command-line driver. Subcommands are registered from one file each; this file only
// parses, dispatches and maps errors to exit codes (0 ok, 1 failed check, 2 bad usage or input).
#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "huge_page_restart.h"
#include "systole/isa/diagnostic.h"

int main(int argc, char** argv) {
  using namespace systole::tools;
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  CLI::App app{"Systole: a hardware-software co-design toolchain for systolic-array NPUs", "systole"};
  app.set_version_flag("--version", std::string("systole ") + SYSTOLE_VERSION);
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, Action>> actions;
  registerIsa(app, actions);
  registerAsm(app, actions);
  registerSim(app, actions);
  registerCompile(app, actions);
  registerRun(app, actions);
  registerReport(app, actions);
  registerSweep(app, actions);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kOk : kBadInput;
  }
  try {
    for (auto& [cmd, action] : actions)
      if (cmd->parsed()) {
        const std::string name = cmd->get_name();
        if (name == "compile" || name == "run" || name == "sim") restartWithHugePagesForBigModels(argc, argv);
        return action();
      }
  } catch (const systole::Error& e) {
    std::cerr << e.what() << "\n";
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "systole: error: " << e.what() << "\n";
    return kBadInput;
  } catch (...) {  // a bug: every error the tools mean to report is a systole::Error
    std::cerr << "systole: internal error: an exception of an unknown type\n";
    return kBadInput;
  }
  return kOk;
}
