#include <cstdlib>
#include <filesystem>

#include "commands.h"

namespace systole::tools {

static std::string configDir() {
  if (const char* env = std::getenv("SYSTOLE_CONFIG_DIR"); env && *env) return env;
  return SYSTOLE_CONFIG_DIR;
}

std::string shippedConfigPath(const std::string& isaName) { return configDir() + "/" + isaName + ".yaml"; }

isa::IsaConfig loadConfig(const std::string& pathOrName) {
  const bool bareName = pathOrName.find('/') == std::string::npos && pathOrName.find('.') == std::string::npos;
  if (bareName && !std::filesystem::exists(pathOrName)) return isa::IsaConfig::load(shippedConfigPath(pathOrName));
  return isa::IsaConfig::load(pathOrName);
}

}  // namespace systole::tools
