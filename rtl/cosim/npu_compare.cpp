// Algorithm: index the simulator's timeline by instruction; an instruction differs when its start
// or completion cycle differs (or only one side ran it); the first divergence is the differing
// instruction whose earlier start (of the two) is earliest. Outputs: each tensor's bytes against
// the RTL's DRAM at its address; a differing byte is traced to the last store (in program order)
// whose rows cover it.
#include <algorithm>
#include <cstdio>
#include <map>

#include "systole/isa/assembler.h"
#include "systole/rtl/npu.h"
#include "systole/sim/functional.h"

namespace systole::rtl {

namespace {

std::string cycleText(uint64_t c) { return c == NpuInstructionCycles::kNever ? "never" : std::to_string(c); }

double relative(uint64_t rtl, uint64_t simulated) {
  if (simulated == 0) return rtl == 0 ? 0.0 : 1.0;
  return (static_cast<double>(rtl) - static_cast<double>(simulated)) / static_cast<double>(simulated);
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.2f%%", 100.0 * fraction);
  return text;
}

/// The last store in program order that writes DRAM byte `addr`, as "instruction N `text`".
std::string storeOf(const isa::IsaConfig& isa, std::span<const isa::Instruction> program, uint64_t addr) {
  for (size_t i = program.size(); i-- > 0;) {
    const isa::InstrDesc& d = isa.instr(program[i].desc);
    if (!sim::isDma(d.semantics)) continue;
    const sim::DmaTransfer t = sim::dmaTransfer(isa.params(), d, program[i]);
    if (!t.to_dram) continue;
    for (int64_t r = 0; r < t.rows; ++r)
      if (addr >= t.rowAddress(r) && addr - t.rowAddress(r) < static_cast<uint64_t>(t.bytes))
        return "instruction " + std::to_string(i) + " `" + isa::formatInstruction(isa, program[i]) + "`";
  }
  return "no store (the DRAM's initial contents)";
}

/// "N compute instructions (requantize 40, vector_add 11; the first: instruction 7 `rq ...`)".
std::string notComputed(const isa::IsaConfig& isa, std::span<const isa::Instruction> program, const NpuRun& rtl) {
  std::map<std::string, size_t> byClass;
  uint32_t first = UINT32_MAX;
  for (uint32_t index : rtl.not_computed) {
    if (index >= program.size()) continue;
    ++byClass[std::string(isa::semanticsInfo(isa.instr(program[index].desc).semantics).name)];
    first = std::min(first, index);
  }
  std::string text =
      std::to_string(rtl.uncomputed) + (rtl.uncomputed == 1 ? " compute instruction (" : " compute instructions (");
  for (const auto& [name, count] : byClass) text += name + " " + std::to_string(count) + ", ";
  if (first != UINT32_MAX)
    text +=
        "the first: instruction " + std::to_string(first) + " `" + isa::formatInstruction(isa, program[first]) + "`; ";
  return text +
         "the RTL's data paths compute every class but matmul_stream with k_slices = 0 and a depthwise_tile past the "
         "array's limits; a start the array could not take in the YAML's timing is not computed either)";
}

/// Compares the simulator's output tensors with the RTL's DRAM; fills the output fields of `c`.
void compareOutputs(const isa::IsaConfig& isa, std::span<const isa::Instruction> program, const NpuRun& rtl,
                    const sim::SimResult& simulated, NpuComparison& c) {
  if (simulated.outputs.empty() || !rtl.dram) {
    c.report += "outputs: not compared (the simulator computed none: timing only, or no tensor table)\n";
    return;
  }
  if (rtl.uncomputed > 0) {
    c.report += "outputs: not compared: the RTL NPU did not compute " + notComputed(isa, program, rtl) + "\n";
    return;
  }
  c.outputs_compared = true;
  size_t differing = 0;
  for (const sim::TensorValue& t : simulated.outputs) {
    std::vector<uint8_t> got(t.bytes.size());
    rtl.dram->read(t.info.dram_addr, got.data(), got.size());
    const auto [a, b] = std::mismatch(t.bytes.begin(), t.bytes.end(), got.begin());
    if (a == t.bytes.end()) continue;
    ++differing;
    if (!c.first_output_difference.empty()) continue;
    const auto offset = static_cast<uint64_t>(a - t.bytes.begin());
    const uint64_t addr = t.info.dram_addr + offset;
    c.first_output_difference = "tensor '" + t.info.name + "' byte " + std::to_string(offset) + " (DRAM address " +
                                std::to_string(addr) + "): RTL " + std::to_string(*b) + ", simulator " +
                                std::to_string(*a) + "; written by " + storeOf(isa, program, addr);
  }
  c.same_outputs = differing == 0;
  c.report += "outputs: " + std::to_string(simulated.outputs.size() - differing) + " of " +
              std::to_string(simulated.outputs.size()) + " tensors bit-exact against the RTL NPU's DRAM\n";
  if (differing) c.report += "first output difference: " + c.first_output_difference + "\n";
}

}  // namespace

NpuComparison compareWithSimulator(const isa::IsaConfig& isa, std::span<const isa::Instruction> program,
                                   const NpuRun& rtl, const sim::SimResult& simulated) {
  std::vector<NpuInstructionCycles> expected(program.size());
  for (const sim::TraceSlice& s : simulated.timeline)
    if (s.instruction < expected.size()) expected[s.instruction] = {s.start, s.end, s.track};
  NpuComparison c;
  uint64_t firstCycle = UINT64_MAX;
  size_t first = 0;
  for (size_t i = 0; i < program.size() && i < rtl.instructions.size(); ++i) {
    const NpuInstructionCycles &r = rtl.instructions[i], &e = expected[i];
    if (r.start == e.start && r.end == e.end) continue;
    ++c.differing_instructions;
    if (std::min(r.start, e.start) < firstCycle) {
      firstCycle = std::min(r.start, e.start);
      first = i;
    }
  }
  c.same_instruction_cycles = c.differing_instructions == 0;
  c.cycles_difference = relative(rtl.cycles, simulated.stats.cycles);
  for (size_t k = 0; k < c.busy_difference.size(); ++k)
    c.busy_difference[k] = relative(rtl.busy_cycles[k], simulated.stats.busy_cycles[k]);

  std::string& out = c.report;
  char line[256];
  std::snprintf(line, sizeof line, "RTL NPU (rtl/npu, Verilated): %llu cycles in %.2f s (%.0f cycles/s)\n",
                static_cast<unsigned long long>(rtl.cycles), rtl.seconds,
                rtl.seconds > 0 ? static_cast<double>(rtl.cycles) / rtl.seconds : 0.0);
  out += line;
  out += "simulator: " + std::to_string(simulated.stats.cycles) +
         " cycles; RTL - simulator: " + percent(c.cycles_difference) + "\n";
  out += "instructions: " + std::to_string(program.size() - c.differing_instructions) + " of " +
         std::to_string(program.size()) + " start and complete in the same cycle as in the simulator\n";
  out += "busy cycles, RTL / simulator:";
  for (size_t k = 0; k < c.busy_difference.size(); ++k)
    out += std::string(k ? "," : "") + " " + std::string(sim::resourceName(static_cast<sim::Resource>(k))) + " " +
           std::to_string(rtl.busy_cycles[k]) + " / " + std::to_string(simulated.stats.busy_cycles[k]);
  out += "\n";
  out += "stall cycles, RTL / simulator:";
  for (size_t u = 0; u < rtl.stall_cycles.size(); ++u) {
    out += std::string(u ? "," : "") + " " + std::string(isa::unitName(static_cast<isa::Unit>(u))) + "[";
    for (size_t k = 0; k < rtl.stall_cycles[u].size(); ++k) {
      const uint64_t want = simulated.stats.stall_cycles[u][k];
      c.same_stall_cycles = c.same_stall_cycles && rtl.stall_cycles[u][k] == want;
      out += std::string(k ? " " : "") + std::string(sim::stallCauseName(static_cast<sim::StallCause>(k))) + "=" +
             std::to_string(rtl.stall_cycles[u][k]) + "/" + std::to_string(want);
    }
    out += "]";
  }
  out += "\n";
  if (!c.same_instruction_cycles) {
    const NpuInstructionCycles &r = rtl.instructions[first], &e = expected[first];
    const int unit = r.unit >= 0 ? r.unit : e.unit;
    c.first_divergence = "instruction " + std::to_string(first) + " `" + isa::formatInstruction(isa, program[first]) +
                         "` on the " +
                         (unit >= 0 ? std::string(isa::unitName(static_cast<isa::Unit>(unit))) : "unknown") +
                         " unit: the RTL starts it in cycle " + cycleText(r.start) + " and completes it in " +
                         cycleText(r.end) + ", the simulator in " + cycleText(e.start) + " and " + cycleText(e.end);
    out += "first divergence: " + c.first_divergence + "\n";
  }
  if (rtl.scoreboard_full_cycles)
    out += "note: starts waited " + std::to_string(rtl.scoreboard_full_cycles) +
           " cycles for a free scoreboard slot (every slot of the RTL's compute scoreboard held an instruction in "
           "flight)\n";
  if (rtl.beats_exceed_occupancy)
    out += "note: a DMA instruction's issue is shorter than its DRAM beats; the RTL holds the unit for the beats\n";
  if (rtl.write_conflict)
    out +=
        "RTL NPU fault: a load's row met a pending fill (a broadcast's rows or a 0-byte load's zeros) at a memory's "
        "write port\n";
  if (!rtl.dram_fault.empty()) out += "RTL NPU DRAM fault: " + rtl.dram_fault + "\n";
  compareOutputs(isa, program, rtl, simulated, c);
  return c;
}

}  // namespace systole::rtl
