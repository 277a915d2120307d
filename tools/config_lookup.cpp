#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "commands.h"

namespace systole::tools {

static std::string configDir() {
  if (const char* env = std::getenv("SYSTOLE_CONFIG_DIR"); env && *env) return env;
  return SYSTOLE_CONFIG_DIR;
}

std::string shippedConfigPath(const std::string& isaName, const std::string& namedBy) {
  // The name may come from a program file: it names a file in the configs directory, nothing else.
  const bool plain = !isaName.empty() && std::all_of(isaName.begin(), isaName.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!plain)
    throw Error(SourceLocation{namedBy}, "ISA name '" + isaName + "' is not the name of a shipped config (letters, digits, '_' and '-'); pass --isa CONFIG.yaml");
  return configDir() + "/" + isaName + ".yaml";
}

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
  if (bareName && !std::filesystem::exists(pathOrName)) return isa::IsaConfig::load(shippedConfigPath(pathOrName), overrides);
  return isa::IsaConfig::load(pathOrName, overrides);
}

}  // namespace systole::tools
