// Fuzz target: the assembler on the default config. A program it accepts must round-trip: through
// the .sbin container unchanged, and through the disassembler back to the same program.
#include <cstdio>
#include <cstdlib>

#include "fuzz_support.h"
#include "systole/isa/assembler.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  const auto& config = *fuzz::shippedConfig("default");
  isa::Program program;
  try {
    program = isa::assemble(config, fuzz::text(data, size), "fuzz.s");
  } catch (const Error& e) {
    fuzz::rejected(e);
    return 0;
  }
  if (isa::deserializeSbin(isa::serializeSbin(program), "fuzz.sbin") != program) {
    std::fputs("the .sbin container does not round-trip the program\n", stderr);
    std::abort();
  }
  const std::string listing = isa::disassemble(config, program);
  if (isa::assemble(config, listing, "fuzz.dis.s") != program) {
    std::fprintf(stderr, "the disassembly does not assemble to the same program:\n%s\n", listing.c_str());
    std::abort();
  }
  return 0;
}
