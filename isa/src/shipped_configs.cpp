#include "systole/isa/shipped_configs.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "systole/isa/diagnostic.h"

namespace systole::isa {

namespace fs = std::filesystem;

namespace {
std::string& registeredDir() {
  static std::string dir;
  return dir;
}
}  // namespace

void setShippedConfigDir(std::string dir) { registeredDir() = std::move(dir); }

std::string shippedConfigDir() {
  if (const char* env = std::getenv("SYSTOLE_CONFIG_DIR"); env && *env) return env;
  if (!registeredDir().empty()) return registeredDir();
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside = ec ? fs::path() : exe.parent_path().parent_path() / "share" / "systole" / "configs";
  if (!ec && fs::is_directory(beside, ec)) return beside.string();
  throw Error("cannot find the shipped configs: SYSTOLE_CONFIG_DIR is not set and " +
              (beside.empty() ? std::string("the executable's path is unknown") : beside.string() + " does not exist") +
              "; set SYSTOLE_CONFIG_DIR to the directory of the config files or pass a config's path");
}

std::string shippedConfigPath(const std::string& name, const std::string& namedBy) {
  const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (!plain)
    throw Error(SourceLocation{namedBy},
                "ISA name '" + name +
                    "' is not the name of a shipped config (letters, digits, '_' and '-'); pass --isa CONFIG.yaml");
  return shippedConfigDir() + "/" + name + ".yaml";
}

}  // namespace systole::isa
