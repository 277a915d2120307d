// systole_svpkg CONFIG.yaml OUT.sv [--set KEY=VALUE]...: the build's generator of the SystemVerilog packages, the same
// text as `systole isa svpkg`. A separate small tool, so the packages (and the Verilated models
// built from them) do not depend on the systole CLI, which links the RTL co-simulation library.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/generate.h"

namespace {

int usage(const char* self) {
  std::fprintf(stderr, "usage: %s CONFIG.yaml OUT.sv [--set KEY=VALUE]...\n", self);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const bool pairs = argc >= 3 && (argc - 3) % 2 == 0;
  for (int i = 3; pairs && i < argc; i += 2)
    if (std::string(argv[i]) != "--set") return usage(argv[0]);
  if (!pairs) return usage(argv[0]);
  try {
    std::vector<systole::isa::ConfigOverride> overrides;
    for (int i = 4; i < argc; i += 2) overrides.push_back(systole::isa::ConfigOverride::parse(argv[i]));
    const auto config = systole::isa::IsaConfig::load(argv[1], overrides);
    std::string source = std::filesystem::path(argv[1]).filename().string();
    for (const auto& o : overrides) source += " " + o.text();
    const std::string text = systole::isa::generateSvPackage(config, source);
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
