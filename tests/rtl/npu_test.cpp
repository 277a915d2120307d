// The whole-NPU RTL (rtl/npu, systole sim --rtl=npu) against the simulator on every shipped config:
// a tiled GEMM and random legal programs start and complete every instruction in the same cycle
// (and spend the same stall cycles, cause by cause); random DMA programs leave the DRAM bytes the
// simulator computes; a simulator whose timing differs by one cycle is caught at the instruction
// that differs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "dma_program.h"
#include "gemm_program.h"
#include "random_program.h"
#include "systole/isa/builder.h"
#include "systole/isa/program.h"
#include "systole/rtl/npu.h"
#include "systole/sim/functional.h"
#include "systole/sim/race_check.h"
#include "systole/sim/simulator.h"

namespace systole::testing {
namespace {

std::string configPath(const std::string& name) {
  return std::string(SYSTOLE_SOURCE_DIR) + "/isa/configs/" + name + ".yaml";
}

sim::SimResult simulate(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program) {
  sim::Simulator simulator(isa);
  sim::SimOptions options;
  options.timing_only = true;
  options.timeline = true;
  return simulator.runDecoded(program, {}, options);
}

rtl::NpuComparison onRtl(const isa::IsaConfig& isa, const std::vector<isa::Instruction>& program,
                         const sim::SimResult& simulated) {
  const rtl::NpuRun run = rtl::runRtlNpu(isa, isa::encodeAll(isa, program));
  EXPECT_FALSE(run.fault);
  EXPECT_FALSE(run.timed_out);
  return rtl::compareWithSimulator(isa, program, run, simulated);
}

class RtlNpu : public ::testing::TestWithParam<std::string> {};

TEST_P(RtlNpu, TiledGemmRunsInTheSimulatorsCycles) {
  const auto isa = isa::IsaConfig::load(configPath(GetParam()));
  const GemmSpec spec{.M = 40, .K = 3 * isa.params().array_rows, .N = 2 * isa.params().array_cols};
  const auto program = buildGemmProgram(isa, spec, randomInt8(static_cast<size_t>(spec.K * spec.N), 3));
  const auto instructions = isa::decodeAll(isa, program.code);
  const auto c = onRtl(isa, instructions, simulate(isa, instructions));
  EXPECT_TRUE(c.same_instruction_cycles) << c.report;
  EXPECT_TRUE(c.same_stall_cycles) << c.report;
  EXPECT_EQ(c.cycles_difference, 0) << c.report;
  for (double d : c.busy_difference) EXPECT_EQ(d, 0) << c.report;
}

/// SYSTOLE_RTL_NPU_PROGRAMS random programs per config (50 unless set), each of 100 instructions.
TEST_P(RtlNpu, RandomLegalProgramsRunInTheSimulatorsCycles) {
  const auto isa = isa::IsaConfig::load(configPath(GetParam()));
  const char* env = std::getenv("SYSTOLE_RTL_NPU_PROGRAMS");
  const int programs = env ? std::atoi(env) : 50;
  int compared = 0;
  for (int seed = 1; seed <= programs; ++seed) {
    const auto program = randomProgram(isa, 100, static_cast<uint32_t>(seed));
    sim::SimResult simulated;
    try {
      simulated = simulate(isa, program);
    } catch (const sim::Fault&) {
      continue;  // operands the simulator rejects (a row range past a memory's end)
    }
    ++compared;
    const auto c = onRtl(isa, program, simulated);
    ASSERT_TRUE(c.same_instruction_cycles && c.same_stall_cycles && c.cycles_difference == 0) << "seed " << seed << "\n"
                                                                                              << c.report;
  }
  EXPECT_GE(compared, programs * 3 / 4) << "too many random programs fault in the simulator";
  std::printf("%s: %d random programs compared, %d faulted in the simulator\n", GetParam().c_str(), compared,
              programs - compared);
}

struct DataRun {
  rtl::NpuRun run;
  rtl::NpuComparison comparison;
};

/// A race-free program with data on the simulator and on the RTL NPU, compared.
DataRun runWithData(const isa::IsaConfig& isa, const isa::Program& program) {
  const auto instructions = isa::decodeAll(isa, program.code);
  EXPECT_FALSE(sim::findRace(isa, instructions).has_value());
  sim::Simulator simulator(isa);
  sim::SimOptions options;
  options.timeline = true;
  const sim::SimResult simulated = simulator.run(program, {}, options);
  DataRun r{rtl::runRtlNpu(isa, program.code, rtl::programImage(program, {})), {}};
  r.comparison = rtl::compareWithSimulator(isa, instructions, r.run, simulated);
  return r;
}

int programsFromEnvironment(const char* name, int fallback) {
  const char* env = std::getenv(name);
  return env ? std::atoi(env) : fallback;
}

/// SYSTOLE_RTL_NPU_DMA_PROGRAMS random programs (20 unless set) on a config, each of 8 phases
/// with `compute` between the loads and the stores: the RTL computes every instruction, in the
/// simulator's cycles, and its DRAM ends with the simulator's bytes.
void expectRandomProgramsMatch(const std::string& config, ComputePhase compute) {
  const auto isa = isa::IsaConfig::load(configPath(config));
  const int programs = programsFromEnvironment("SYSTOLE_RTL_NPU_DMA_PROGRAMS", 20);
  for (int seed = 1; seed <= programs; ++seed) {
    const auto [run, c] = runWithData(isa, randomDmaProgram(isa, 8, static_cast<uint32_t>(seed), compute));
    ASSERT_EQ(run.uncomputed, 0u) << "seed " << seed << "\n" << c.report;
    ASSERT_TRUE(c.outputs_compared && c.same_outputs && c.same_instruction_cycles && run.dram_fault.empty() &&
                !run.write_conflict)
        << "seed " << seed << "\n"
        << c.report;
  }
}

/// Loads and stores of every DMA class around compute nops.
TEST_P(RtlNpu, RandomDmaProgramsLeaveTheSimulatorsBytesInDram) {
  expectRandomProgramsMatch(GetParam(), ComputePhase::Nop);
}

/// Weight preloads and array products (matmul_tile, matmul_stream, depthwise_tile) in every phase,
/// overlapped where the YAML overlaps them (issue: m, two weight sets).
TEST_P(RtlNpu, RandomArrayProgramsLeaveTheSimulatorsBytesInDram) {
  expectRandomProgramsMatch(GetParam(), ComputePhase::Array);
}

/// One to three vector instructions of any class in every phase.
TEST_P(RtlNpu, RandomVectorProgramsLeaveTheSimulatorsBytesInDram) {
  expectRandomProgramsMatch(GetParam(), ComputePhase::Vector);
}

INSTANTIATE_TEST_SUITE_P(ShippedConfigs, RtlNpu, ::testing::Values("tiny", "default", "os16", "large"));

TEST(RtlNpuComparison, NamesTheFirstInstructionWhoseCyclesDiffer) {
  const auto isa = isa::IsaConfig::load(configPath("default"));
  // The simulator with gemm one cycle longer than the RTL was generated with.
  const auto slower = isa::IsaConfig::load(
      configPath("default"),
      {isa::ConfigOverride::parse("instructions.gemm.timing.cycles=m + array.rows + array.cols - 1")});
  const GemmSpec spec{.M = 16, .K = 16, .N = 16, .buffers = 1};
  const auto program = buildGemmProgram(isa, spec, randomInt8(256, 5));
  const auto instructions = isa::decodeAll(isa, program.code);
  const auto c = onRtl(isa, instructions, simulate(slower, instructions));
  EXPECT_FALSE(c.same_instruction_cycles);
  EXPECT_NE(c.first_divergence.find("`gemm "), std::string::npos) << c.first_divergence;
  EXPECT_NE(c.first_divergence.find("compute unit"), std::string::npos) << c.first_divergence;
  EXPECT_NE(c.report.find("first divergence: instruction "), std::string::npos) << c.report;
}

TEST(RtlNpuComparison, NamesTheStoreThatWroteTheFirstDifferingByte) {
  const auto isa = isa::IsaConfig::load(configPath("default"));
  const isa::Program program = randomDmaProgram(isa, 2, 3);
  const auto instructions = isa::decodeAll(isa, program.code);
  sim::Simulator simulator(isa);
  sim::SimOptions options;
  options.timeline = true;
  sim::SimResult simulated = simulator.run(program, {}, options);
  const rtl::NpuRun run = rtl::runRtlNpu(isa, program.code, rtl::programImage(program, {}));
  // The simulator's output with one byte changed: the last byte the program's last store writes.
  const isa::Instruction& store = instructions[instructions.size() - 2];
  const sim::DmaTransfer t = sim::dmaTransfer(isa.params(), isa.instr(store.desc), store);
  ASSERT_TRUE(t.to_dram && t.bytes > 0);
  const uint64_t addr = t.rowAddress(t.rows - 1) + static_cast<uint64_t>(t.bytes) - 1;
  sim::TensorValue& out = simulated.outputs.at(0);
  out.bytes.at(addr - out.info.dram_addr) ^= 1;
  const auto c = rtl::compareWithSimulator(isa, instructions, run, simulated);
  EXPECT_TRUE(c.outputs_compared);
  EXPECT_FALSE(c.same_outputs);
  EXPECT_NE(c.first_output_difference.find("(DRAM address " + std::to_string(addr) + ")"), std::string::npos)
      << c.first_output_difference;
  EXPECT_NE(c.first_output_difference.find("written by instruction " + std::to_string(instructions.size() - 2)),
            std::string::npos)
      << c.first_output_difference;
}

/// A load of 0-byte rows writes zeros in cycles the YAML does not charge; a load that starts right
/// after it (dma.outstanding 4 on default) meets those writes at the write port: the RTL reports
/// it as a fault, which the comparison prints, instead of losing a row.
TEST(RtlNpuComparison, ReportsAWritePortConflict) {
  const auto isa = isa::IsaConfig::load(configPath("default"));
  isa::ProgramBuilder b(isa);
  const int64_t rowBytes = isa.params().spad_row_bytes;
  b.emit(isa::Semantics::DmaLoad, {0, 0, 8, 0, rowBytes});
  b.emit(isa::Semantics::DmaLoad, {0, 20, 1, rowBytes, rowBytes});
  b.emit(isa::Semantics::Finish, {});
  const isa::Program program = b.build();
  const auto instructions = isa::decodeAll(isa, program.code);
  const rtl::NpuRun run = rtl::runRtlNpu(isa, program.code, rtl::programImage(program, {}));
  EXPECT_TRUE(run.write_conflict);
  const auto c = rtl::compareWithSimulator(isa, instructions, run, simulate(isa, instructions));
  EXPECT_NE(c.report.find("RTL NPU fault: a load's row met a pending fill"), std::string::npos) << c.report;
}

TEST(RtlNpuComparison, RefusesAConfigTheRtlWasNotBuiltFrom) {
  const auto changed =
      isa::IsaConfig::load(configPath("default"), {isa::ConfigOverride::parse("memories.dram.latency=7")});
  EXPECT_THROW(rtl::runRtlNpu(changed, {}), Error);
}

}  // namespace
}  // namespace systole::testing
