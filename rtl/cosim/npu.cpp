// runRtlNpu: the Verilated NPU of the config (build_table.h), one per shipped config, and the DPI
// functions its RTL imports (rtl/npu/npu_dpi_pkg.sv).
#include "systole/rtl/npu.h"

#include "build_table.h"
#include "svdpi.h"
#include "verilated_npu.h"

namespace systole::rtl {

NpuDpiRun& currentNpuRun() {
  static NpuDpiRun run;
  return run;
}

namespace {

using Factory = NpuRun (*)(const std::vector<uint8_t>& code, size_t instrBytes, uint64_t maxCycles);

NpuInstructionCycles& recorded(unsigned index, int unit) {
  NpuDpiRun& run = currentNpuRun();
  if (!run.result || index >= run.length) throw Error("the RTL NPU reported instruction " + std::to_string(index));
  NpuInstructionCycles& c = run.result->instructions[index];
  c.unit = unit;
  return c;
}

}  // namespace

}  // namespace systole::rtl

// The DPI imports of rtl/npu/npu_dpi_pkg.sv (one definition serves every config's model).
extern "C" void npu_fetch(unsigned int index, svBitVecVal* word) {
  const auto& run = systole::rtl::currentNpuRun();
  const size_t words = (run.instr_bytes + 3) / 4;
  for (size_t w = 0; w < words; ++w) word[w] = 0;
  if (index < run.length) std::memcpy(word, run.code + index * run.instr_bytes, run.instr_bytes);  // little-endian
}
extern "C" void npu_started(unsigned int index, int unit, long long cycle) {
  systole::rtl::recorded(index, unit).start = static_cast<uint64_t>(cycle);
}
extern "C" void npu_completed(unsigned int index, int unit, long long cycle) {
  systole::rtl::recorded(index, unit).end = static_cast<uint64_t>(cycle);
}

namespace systole::rtl {

#define SYSTOLE_NPU_BUILD(name, path) \
  NpuRun runRtlNpu_##name(const std::vector<uint8_t>& code, size_t instrBytes, uint64_t maxCycles);
#include "rtl_npu_builds.inc"
#undef SYSTOLE_NPU_BUILD

namespace {

const Build<Factory> kBuilds[] = {
#define SYSTOLE_NPU_BUILD(name, path) {#name, path, "", &runRtlNpu_##name},
#include "rtl_npu_builds.inc"
#undef SYSTOLE_NPU_BUILD
};

}  // namespace

NpuRun runRtlNpu(const isa::IsaConfig& isa, const std::vector<uint8_t>& code, uint64_t max_cycles) {
  const auto& build = findBuild<Factory>(kBuilds, isa, "RTL NPU");
  return build.make(code, static_cast<size_t>(isa.params().instr_bytes), max_cycles);
}

std::vector<std::string> rtlNpuConfigs() { return buildNames<Factory>(kBuilds); }

}  // namespace systole::rtl
