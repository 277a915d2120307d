// Where the shipped configs (isa/configs/*.yaml, installed as share/systole/configs) are found at
// run time, so that `--isa tiny` and programs that name their ISA work from the build tree and
// from an install anywhere, without a path baked in at build time:
//   1. $SYSTOLE_CONFIG_DIR, if set and not empty;
//   2. the directory a library embedding Systole registered (setShippedConfigDir: the Python
//      module gives PREFIX/share/systole/configs found relative to itself);
//   3. share/systole/configs beside the running executable's directory (EXE_DIR/../share/...):
//      PREFIX/bin/systole in an install, build/<preset>/tools/systole in the build tree (whose
//      build/<preset>/share/systole/configs links to the sources).
// A program that links the libraries from elsewhere sets SYSTOLE_CONFIG_DIR (the CMake package
// gives the installed directory as Systole_CONFIG_DIR) or loads a config by path.
#pragma once

#include <string>

namespace systole::isa {

/// Registers the directory of rule 2 for this process (empty: none).
void setShippedConfigDir(std::string dir);

/// The directory, by the rules above. Throws Error naming where it looked if there is none.
std::string shippedConfigDir();

/// The shipped config called `name` ("tiny", "default", ...). The name may come from a program
/// file: it must name a file in the configs directory and nothing else, or Error is thrown
/// against `namedBy` (the file the name came from, if any).
std::string shippedConfigPath(const std::string& name, const std::string& namedBy = "");

}  // namespace systole::isa
