#include <filesystem>

#include "commands.h"
#include "systole/isa/shipped_configs.h"

namespace systole::tools {

namespace {
std::vector<std::string>& setArguments() {
  static std::vector<std::string> sets;
  return sets;
}
}  // namespace

void addSetOption(CLI::App& cmd) {
  cmd.add_option("--set", setArguments(),
                 "KEY=VALUE: override a config key before validation (repeatable), e.g. array.rows=32, "
                 "memories.dram.bytes_per_cycle=32, instructions.gemm.timing.cycles=\"m + 40\"");
}

isa::IsaConfig loadConfig(const std::string& pathOrName) {
  std::vector<isa::ConfigOverride> overrides;
  for (const std::string& s : setArguments()) overrides.push_back(isa::ConfigOverride::parse(s));
  const bool bareName = pathOrName.find('/') == std::string::npos && pathOrName.find('.') == std::string::npos;
  if (bareName && !std::filesystem::exists(pathOrName))
    return isa::IsaConfig::load(isa::shippedConfigPath(pathOrName), overrides);
  return isa::IsaConfig::load(pathOrName, overrides);
}

}  // namespace systole::tools
