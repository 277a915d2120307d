// The text of a shipped config, for tests that edit a key and compare the two.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace systole::testing {

inline std::string shippedConfigText(const std::string& name) {
  std::ifstream in(std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + name + ".yaml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string defaultConfigText() { return shippedConfigText("default"); }

}  // namespace systole::testing
