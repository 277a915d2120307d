// Fuzz target: the .sbin reader and the simulator. A program that loads and was built for a
// shipped config (or default with int16 activations) runs three times: normally, timing-only with a trace, and with
// --poison and --races; each run may end in a simulation fault (sim::Fault) or an Error, never in anything else. Runs
// stay short: at most kMaxInstructions instructions and kMaxInputBytes of input. The trailing checksum is recomputed
// before reading, so a mutation reaches the decoder and the simulator instead of failing the checksum (which the seeds
// and the .sbin unit tests cover).
#include <map>
#include <memory>

#include "fuzz_support.h"
#include "systole/isa/diagnostic.h"
#include "systole/isa/program.h"
#include "systole/sim/simulator.h"

namespace {

constexpr size_t kMaxInstructions = 4096;
constexpr int64_t kMaxInputBytes = int64_t{1} << 20;

/// The bytes with their last 8 replaced by the FNV-1a checksum of the others (little-endian).
std::vector<uint8_t> withChecksum(std::vector<uint8_t> bytes) {
  if (bytes.size() < 8) return bytes;
  const size_t body = bytes.size() - 8;
  const uint64_t checksum = systole::isa::fnv1a64(bytes.data(), body);
  for (size_t i = 0; i < 8; ++i) bytes[body + i] = static_cast<uint8_t>(checksum >> (8 * i));
  return bytes;
}

systole::sim::Simulator& simulatorFor(const systole::isa::IsaConfig& config) {
  static std::map<const systole::isa::IsaConfig*, std::unique_ptr<systole::sim::Simulator>> simulators;
  auto& s = simulators[&config];
  if (!s) s = std::make_unique<systole::sim::Simulator>(config);
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace systole;
  isa::Program program;
  try {
    program = isa::deserializeSbin(withChecksum(fuzz::bytes(data, size)), "fuzz.sbin");
  } catch (const Error& e) {
    fuzz::rejected(e);
    return 0;
  }
  const isa::IsaConfig* config = fuzz::programConfig(program.isa_name, program.isa_hash);
  if (!config || program.instructionCount() > kMaxInstructions) return 0;
  std::map<std::string, std::vector<uint8_t>> inputs;
  int64_t inputBytes = 0;
  for (const auto& t : program.tensors) {
    if (t.kind != isa::TensorKind::Input) continue;
    if (t.bytes() < 0 || t.bytes() > kMaxInputBytes - inputBytes) return 0;
    inputBytes += t.bytes();
    inputs[t.name] = std::vector<uint8_t>(static_cast<size_t>(t.bytes()), 0x5a);
  }
  sim::SimOptions timingOnly, checked;
  timingOnly.timing_only = true;
  timingOnly.trace = true;
  checked.poison = true;
  checked.races = true;
  for (const auto& options : {sim::SimOptions{}, timingOnly, checked}) {
    try {
      (void)simulatorFor(*config).run(program, inputs, options);
    } catch (const Error& e) {  // sim::Fault is an Error
      fuzz::rejected(e);
    }
  }
  return 0;
}
