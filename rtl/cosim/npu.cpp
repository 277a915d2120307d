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

using Factory = NpuRun (*)(const std::vector<uint8_t>& code, size_t instrBytes, std::shared_ptr<sim::PagedDram> dram,
                           uint64_t maxCycles);

NpuInstructionCycles& recorded(unsigned index, int unit) {
  NpuDpiRun& run = currentNpuRun();
  if (!run.result || index >= run.length) throw Error("the RTL NPU reported instruction " + std::to_string(index));
  NpuInstructionCycles& c = run.result->instructions[index];
  c.unit = unit;
  return c;
}

/// A beat of `len` bytes at `addr` (len <= the channel's bytes per cycle) in the run's DRAM; an
/// access out of range is recorded and does nothing (reads give zeros).
template <typename Access>
void dramBeat(long long addr, int len, Access&& access) {
  NpuDpiRun& run = currentNpuRun();
  if (!run.dram || !run.result) throw Error("the RTL NPU accessed its DRAM outside a run");
  try {
    access(*run.dram, static_cast<uint64_t>(addr), static_cast<uint64_t>(len));
  } catch (const sim::FaultCause& fault) {
    if (run.result->dram_fault.empty()) run.result->dram_fault = fault.message;
  }
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
extern "C" void npu_not_computed(unsigned int index) {
  auto& run = systole::rtl::currentNpuRun();
  if (run.result) run.result->not_computed.push_back(index);
}
// svBitVecVal words are 32 bits, little-endian bytes on this (little-endian) host.
extern "C" void npu_dram_read(long long addr, int len, svBitVecVal* data) {
  std::memset(data, 0, (static_cast<size_t>(len) + 3) / 4 * 4);
  systole::rtl::dramBeat(addr, len, [&](const systole::sim::PagedDram& dram, uint64_t a, uint64_t n) {
    dram.read(a, reinterpret_cast<uint8_t*>(data), n);
  });
}
extern "C" void npu_dram_write(long long addr, int len, const svBitVecVal* data) {
  systole::rtl::dramBeat(addr, len, [&](systole::sim::PagedDram& dram, uint64_t a, uint64_t n) {
    dram.write(a, reinterpret_cast<const uint8_t*>(data), n);
  });
}

namespace systole::rtl {

#define SYSTOLE_NPU_BUILD(name, path)                                                                                \
  NpuRun runRtlNpu_##name(const std::vector<uint8_t>& code, size_t instrBytes, std::shared_ptr<sim::PagedDram> dram, \
                          uint64_t maxCycles);
#include "rtl_npu_builds.inc"
#undef SYSTOLE_NPU_BUILD

namespace {

const Build<Factory> kBuilds[] = {
#define SYSTOLE_NPU_BUILD(name, path) {#name, path, "", &runRtlNpu_##name},
#include "rtl_npu_builds.inc"
#undef SYSTOLE_NPU_BUILD
};

}  // namespace

std::vector<DramBytes> programImage(const isa::Program& program,
                                    const std::map<std::string, std::vector<uint8_t>>& inputs) {
  std::vector<DramBytes> image;
  for (const isa::DataSegment& d : program.data) image.push_back({d.dram_addr, d.bytes});
  for (const isa::TensorInfo& t : program.tensors)
    if (const auto it = inputs.find(t.name); t.kind == isa::TensorKind::Input && it != inputs.end())
      image.push_back({t.dram_addr, it->second});
  return image;
}

NpuRun runRtlNpu(const isa::IsaConfig& isa, const std::vector<uint8_t>& code, std::span<const DramBytes> image,
                 uint64_t max_cycles) {
  const auto& build = findBuild<Factory>(kBuilds, isa, "RTL NPU");
  auto dram = std::make_shared<sim::PagedDram>(static_cast<uint64_t>(isa.params().dram_size));
  for (const DramBytes& d : image) dram->write(d.dram_addr, d.bytes.data(), d.bytes.size());
  return build.make(code, static_cast<size_t>(isa.params().instr_bytes), std::move(dram), max_cycles);
}

std::vector<std::string> rtlNpuConfigs() { return buildNames<Factory>(kBuilds); }

}  // namespace systole::rtl
