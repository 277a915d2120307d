// The whole-NPU RTL (rtl/npu/): one Verilated model per shipped config runs a program's
// instructions with the YAML's timing, and its DMA moves the data between a DRAM (here, behind
// DPI) and the RTL's scratchpad and accumulator, and its array computes weight_preload and
// matmul_tile. compareWithSimulator() checks every instruction's start and completion cycle, the
// total and the units' busy cycles against the simulator's, and the output tensors' bytes when
// the RTL computed every instruction. Used by `systole sim --rtl=npu`.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "systole/isa/config.h"
#include "systole/isa/encoding.h"
#include "systole/sim/memory.h"
#include "systole/sim/simulator.h"

namespace systole::rtl {

/// One instruction's cycles on the RTL NPU (kNever: it did not start or complete).
struct NpuInstructionCycles {
  static constexpr uint64_t kNever = UINT64_MAX;
  uint64_t start = kNever, end = kNever;
  int unit = -1;
};

struct NpuRun {
  uint64_t cycles = 0;
  std::array<uint64_t, sim::kNumResources> busy_cycles{};                                 // by sim::Resource
  std::array<std::array<uint64_t, sim::kNumStallCauses>, isa::kNumUnits> stall_cycles{};  // [unit][sim::StallCause]
  uint64_t scoreboard_full_cycles = 0;  // starts held only for a free scoreboard slot
  bool fault = false;                   // an unknown opcode or a token FIFO overflow
  bool beats_exceed_occupancy = false;  // a DMA whose issue is shorter than its DRAM beats
  bool timed_out = false;               // still running after the cycle limit
  bool write_conflict = false;          // a load's row write met a pending fill (broadcast, 0-byte rows)
  /// Compute instructions the RTL started but did not compute: a class it has no datapath for,
  /// or an array instruction that overlapped the one before (rtl/npu/npu_array_path.sv).
  uint64_t uncomputed = 0;
  std::vector<uint32_t> not_computed;  // their indices, as the RTL reported them
  std::string dram_fault;              // the first DRAM access out of range (then read as zeros, not written)
  std::vector<NpuInstructionCycles> instructions;
  std::shared_ptr<const sim::PagedDram> dram;  // the DRAM after the run
  double seconds = 0;                          // wall-clock time of the RTL simulation
};

/// Bytes placed in the DRAM before a run: a program's data segments, its input tensors.
struct DramBytes {
  uint64_t dram_addr = 0;
  std::span<const uint8_t> bytes;
};

/// A program's DRAM image as the simulator builds it: its data segments, then its input tensors
/// (by name, at their tensor table's addresses; a missing input is left out).
std::vector<DramBytes> programImage(const isa::Program& program,
                                    const std::map<std::string, std::vector<uint8_t>>& inputs);

/// Runs a program (its encoded instructions, isa::Program::code) on the Verilated NPU of `isa`
/// (picked by ISA name and config hash; throws systole::Error when there is none), its DRAM
/// holding `image` first. Stops after `max_cycles`.
NpuRun runRtlNpu(const isa::IsaConfig& isa, const std::vector<uint8_t>& code, std::span<const DramBytes> image = {},
                 uint64_t max_cycles = uint64_t{1} << 40);

/// The RTL NPU against the simulator's run of the same program (its timeline and statistics).
struct NpuComparison {
  bool same_instruction_cycles = true;  // every instruction starts and completes in the same cycle
  uint64_t differing_instructions = 0;
  std::string first_divergence;  // the earliest differing instruction, its unit and cycles
  double cycles_difference = 0;  // (rtl - simulator) / simulator
  std::array<double, sim::kNumResources> busy_difference{};
  bool same_stall_cycles = true;  // every unit's stall cycles by cause
  /// The output tensors (sim::SimResult::outputs) against the RTL's DRAM: compared only when the
  /// simulator computed them and the RTL computed every instruction (NpuRun::uncomputed is 0).
  bool outputs_compared = false;
  bool same_outputs = true;
  std::string first_output_difference;  // the tensor, the byte, both values and the store that wrote it
  std::string report;                   // the lines `systole sim --rtl=npu` prints
};
NpuComparison compareWithSimulator(const isa::IsaConfig& isa, std::span<const isa::Instruction> program,
                                   const NpuRun& rtl, const sim::SimResult& simulated);

/// Names of the configs with a Verilated NPU.
std::vector<std::string> rtlNpuConfigs();

}  // namespace systole::rtl
