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

isa::IsaConfig loadConfig(const std::string& pathOrName) {
  const bool bareName = pathOrName.find('/') == std::string::npos && pathOrName.find('.') == std::string::npos;
  if (bareName && !std::filesystem::exists(pathOrName)) return isa::IsaConfig::load(shippedConfigPath(pathOrName));
  return isa::IsaConfig::load(pathOrName);
}

}  // namespace systole::tools
