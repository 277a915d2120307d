// Fuzz target: the YAML config loader (strict schema, derived parameters, timing and limit
// expressions checked at the field maxima). A config it accepts must also yield its reference
// page and SystemVerilog package. Only systole::Error may escape the library.
#include "fuzz_support.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/generate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  try {
    const auto config = isa::IsaConfig::parse(fuzz::text(data, size), "fuzz.yaml");
    (void)isa::generateIsaDoc(config, "fuzz.yaml");
    (void)isa::generateSvPackage(config, "fuzz.yaml");
  } catch (const Error& e) {
    fuzz::rejected(e);
  }
  return 0;
}
