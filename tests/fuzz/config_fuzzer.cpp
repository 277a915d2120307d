// Fuzz target: the YAML config loader (strict schema, derived parameters, timing and limit
// expressions checked at the field maxima) and `--set KEY=VALUE` overrides: each leading line
// `#set KEY=VALUE` of the input (a YAML comment, so the file stays YAML) is applied as one. A config
// it accepts must also yield its reference page and SystemVerilog package. Only systole::Error may
// escape the library.
#include <string_view>
#include <vector>

#include "fuzz_support.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/generate.h"

namespace {

/// The overrides named by the input's leading `#set ` lines.
std::vector<systole::isa::ConfigOverride> leadingOverrides(std::string_view text) {
  constexpr std::string_view prefix = "#set ";
  std::vector<systole::isa::ConfigOverride> overrides;
  while (text.substr(0, prefix.size()) == prefix) {
    const size_t end = text.find('\n');
    overrides.push_back(
        systole::isa::ConfigOverride::parse(std::string(text.substr(prefix.size(), end - prefix.size()))));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return overrides;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  try {
    const std::string text = fuzz::text(data, size);
    const auto config = isa::IsaConfig::parse(text, "fuzz.yaml", leadingOverrides(text));
    (void)isa::generateIsaDoc(config, "fuzz.yaml");
    (void)isa::generateSvPackage(config, "fuzz.yaml");
  } catch (const Error& e) {
    fuzz::rejected(e);
  }
  return 0;
}
