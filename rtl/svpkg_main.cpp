// systole_svpkg CONFIG.yaml OUT.sv: the build's generator of the SystemVerilog packages, the same
// text as `systole isa svpkg`. A separate small tool, so the packages (and the Verilated models
// built from them) do not depend on the systole CLI, which links the RTL co-simulation library.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>

#include "systole/isa/config.h"
#include "systole/isa/generate.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CONFIG.yaml OUT.sv\n", argv[0]);
    return 2;
  }
  try {
    const auto config = systole::isa::IsaConfig::load(argv[1]);
    const std::string text =
        systole::isa::generateSvPackage(config, std::filesystem::path(argv[1]).filename().string());
    std::ofstream out(argv[2], std::ios::binary);
    out << text;
    out.close();
    if (!out) {
      std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[2]);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
