// Fuzz target: the assembler on the default config with 4 MiB of DRAM (with default's 512 MiB, a
// one-line `.zero` filling DRAM made most of the run's time page faults: 80-190 inputs/s). A program
// it accepts must round-trip: through the .sbin container unchanged, and through the disassembler
// back to the same program (checked for programs of at most kMaxRoundTripData data bytes).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "systole/isa/assembler.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/program.h"

constexpr size_t kMaxRoundTripData = size_t{1} << 20;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  static const isa::IsaConfig config = isa::IsaConfig::load(SYSTOLE_SOURCE_DIR "/isa/configs/default.yaml",
                                                            {isa::ConfigOverride::parse("memories.dram.size=4MiB")});
  isa::Program program;
  try {
    program = isa::assemble(config, fuzz::text(data, size), "fuzz.s");
  } catch (const Error& e) {
    fuzz::rejected(e);
    return 0;
  }
  size_t dataBytes = 0;
  for (const auto& seg : program.data) dataBytes += seg.bytes.size();
  if (dataBytes > kMaxRoundTripData) return 0;
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
